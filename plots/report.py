#!/usr/bin/env python3
"""A static HTML report from fla-bench result files: provenance, summary, tables and every figure.

    report.py RESULTS... -o OUTDIR [--history HISTORY_JSON]

Writes the figures (PNG and SVG, as plot_results.py does) and OUTDIR/index.html, one self-contained page that
needs no script, server or external file beyond the figures next to it; prints the page's path. A file that
cannot be read is refused with one line on stderr and exit status 2; an OUTDIR that cannot be written is an
error with exit status 1.
"""

import argparse
import os
import sys
from html import escape

import report_sections as sections
from figure_output import SUPPORTED_FORMATS, FigureSink
from fla_results import ResultFile, add_input_arguments, run_tool
from plot_results import make_figures, print_notes

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; max-width: 60em; }
nav a { margin-right: 1em; }
"""


def render_page(results: list[ResultFile], figure_sink: FigureSink, history: dict | None) -> str:
    """The whole page: a contents line, then each section; history only when a history file was given."""
    parts = [("inputs", "Inputs", sections.provenance(results)),
             ("summary", "Summary", sections.summary(results)),
             ("figures", "Figures", sections.figures(figure_sink)),
             ("timed", "Timed cases", sections.timed_cases(results)),
             ("problems", "Failed and skipped cases", sections.failed_and_skipped(results)),
             ("checks", "Check results", sections.checks(results))]
    if history is not None:
        parts.append(("history", "History runs", sections.history_runs(history)))
    contents = " ".join(f'<a href="#{anchor}">{escape(title)}</a>' for anchor, title, _ in parts)
    body = "".join(sections.section(anchor, title, html) for anchor, title, html in parts)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>fla-bench report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"<h1>fla-bench report</h1>\n<nav>{contents}</nav>\n{body}</body>\n</html>\n")


def write_report(results: list[ResultFile], outdir: str, history: dict | None, program: str) -> str:
    """Writes the figures and index.html into outdir; returns the page's path."""
    figure_sink = make_figures(results, outdir, SUPPORTED_FORMATS, history)
    print_notes(program, figure_sink)
    path = os.path.join(outdir, "index.html")
    with open(path, "w", encoding="utf-8") as page:
        page.write(render_page(results, figure_sink, history))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A static HTML report from fla-bench result files.")
    add_input_arguments(parser)
    parser.add_argument("-o", "--outdir", required=True, metavar="OUTDIR",
                        help="folder for index.html and the figures")
    return run_tool(parser, argv,
                    lambda args, results, history: print(write_report(results, args.outdir, history, parser.prog)))


if __name__ == "__main__":
    sys.exit(main())
