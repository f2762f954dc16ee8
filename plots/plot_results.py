#!/usr/bin/env python3
"""Figures from fla-bench result files (and, optionally, a `fla-bench history --out` file).

    plot_results.py RESULTS... -o OUTDIR [--history HISTORY_JSON] [--formats png,svg]

RESULTS are result files (.json, or .partial from a run in progress) or folders of *.json files. Every figure
written is printed, one path a line; a figure the data does not allow is skipped with a note on stderr. A file
that cannot be read is refused with one line on stderr and exit status 2; an OUTDIR that cannot be written is
an error with exit status 1. plots/README.md lists the figures.
"""

import argparse
import os
import sys

from check_figure import plot_check_heatmap
from figure_output import SUPPORTED_FORMATS, FigureSink
from fla_results import ResultFile, add_input_arguments, run_tool
from history_figure import plot_history
from timing_figures import plot_timing_figures


def make_figures(results: list[ResultFile], outdir: str, formats: tuple[str, ...] = SUPPORTED_FORMATS,
                 history: dict | None = None) -> FigureSink:
    """Writes every figure the inputs allow into outdir (created if missing). The returned sink lists the
    figures written, with captions, and notes on those skipped."""
    os.makedirs(outdir, exist_ok=True)
    sink = FigureSink(outdir, formats)
    plot_timing_figures(results, sink)
    plot_check_heatmap(results, sink)
    if history is not None:
        plot_history(history, sink)
    return sink


def print_notes(program: str, sink: FigureSink) -> None:
    """One stderr line per note, so a figure missing (or drawn in part) is explained, never silent."""
    for note in sink.notes:
        print(f"{program}: note: {note}", file=sys.stderr)


def _formats(text: str) -> tuple[str, ...]:
    formats = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [name for name in formats if name not in SUPPORTED_FORMATS]
    if not formats or unknown:
        raise argparse.ArgumentTypeError(f"choose from {','.join(SUPPORTED_FORMATS)} (got {text!r})")
    return formats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Figures from fla-bench result files.")
    add_input_arguments(parser)
    parser.add_argument("-o", "--outdir", required=True, metavar="OUTDIR", help="folder for the figures")
    parser.add_argument("--formats", type=_formats, default=SUPPORTED_FORMATS, metavar="png,svg",
                        help="comma-separated image formats (default: png,svg)")

    def produce(args, results, history):
        sink = make_figures(results, args.outdir, args.formats, history)
        print_notes(parser.prog, sink)
        for figure in sink.written:
            print("\n".join(figure.paths))

    return run_tool(parser, argv, produce)


if __name__ == "__main__":
    sys.exit(main())
