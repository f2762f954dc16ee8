"""The sections of report.py's index.html, each a function from the inputs to an HTML fragment.

Every piece of text from a result file goes through html.escape, so a case name or command line can never
become markup.
"""

import os
import shlex
from html import escape
from urllib.parse import quote

from figure_output import FigureSink
from fla_results import ResultFile, failed_tensors, iqr_spread_pct, threshold_ratio, worst_threshold_ratio

STATUSES = ("ok", "failed", "skipped")
CLOSEST_TENSORS_SHOWN = 15
NO_FAMILY = "(none: a timed or filtered run)"
TENSOR_HEADERS = ["file", "case", "tensor", "rms_ratio", "threshold", "ratio / threshold", "non-finite",
                  "detail"]
TENSOR_NUMERIC_COLUMNS = (3, 4, 5, 6)


def table(headers: list[str], rows: list[list], numeric_columns: tuple[int, ...] = ()) -> str:
    """An HTML table of escaped text; numeric columns are right-aligned so digits line up."""
    head = "".join(f"<th>{escape(header)}</th>" for header in headers)
    body = "".join("<tr>" + "".join(_cell(cell, index in numeric_columns) for index, cell in enumerate(row))
                   + "</tr>\n" for row in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n"


def _cell(value, numeric: bool) -> str:
    opening = '<td class="num">' if numeric else "<td>"
    return f"{opening}{escape(str(value))}</td>"


def section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{escape(anchor)}">\n<h2>{escape(title)}</h2>\n{body}</section>\n'


def paragraph(text: str) -> str:
    return f"<p>{escape(text)}</p>\n"


def _file(result: ResultFile) -> str:
    return os.path.basename(result.path)


def _number(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def provenance(results: list[ResultFile]) -> str:
    """Where each input came from: enough to find the build and re-run the command."""
    rows = []
    for result in results:
        context = result.context
        sha = context.get("git_sha", "?") + (" (dirty)" if context.get("git_dirty") else "")
        rows.append([_file(result), result.gpu, context["device"].get("backend", "?"),
                     context.get("fla_bench_version", "?"), sha, context.get("started_utc", "?"),
                     context.get("host", "?"), shlex.join(context.get("command_line", [])),
                     "complete" if result.complete else "partial (run in progress, or it died)"])
    return table(["file", "GPU", "backend", "fla-bench", "git sha", "started (UTC)", "host", "command line",
                  "file state"], rows)


def summary(results: list[ResultFile]) -> str:
    """Case counts per file and in all, counted from the cases, since a partial file has no summary."""
    rows, totals = [], dict.fromkeys(STATUSES, 0)
    for result in results:
        counts = {status: sum(case["status"] == status for case in result.cases) for status in STATUSES}
        totals = {status: totals[status] + counts[status] for status in STATUSES}
        rows.append([_file(result), result.gpu, len(result.cases), *counts.values()])
    rows.append(["all files", "", sum(totals.values()), *totals.values()])
    headline = (f"{sum(totals.values())} cases in {len(results)} file{'' if len(results) == 1 else 's'}: "
                f"{totals['ok']} ok, {totals['failed']} failed, {totals['skipped']} skipped.")
    return paragraph(headline) + table(["file", "GPU", "cases", *STATUSES], rows,
                                       numeric_columns=(2, 3, 4, 5))


def check_summary(case: dict) -> str:
    """One cell's worth: passed with how close it came, or which tensors failed."""
    check = case.get("check")
    if check is None:
        return "not checked"
    if not check["passed"]:
        return "FAIL: " + (", ".join(failed_tensors(check)) or "see reason")
    worst = worst_threshold_ratio(check)
    return "pass" if worst is None else f"pass (worst {worst:.2g} of threshold)"


def timed_cases(results: list[ResultFile]) -> str:
    """Every timed case, in run order, with the GPU where the inputs span several."""
    gpu_column = ["GPU"] if len({result.gpu for result in results}) > 1 else []
    rows = []
    for result in results:
        for case in (case for case in result.cases if "timing" in case):
            timing, derived = case["timing"], case.get("derived", {})
            rows.append([_file(result), *([result.gpu] if gpu_column else []), case["name"],
                         _number(timing["median_ms"], ".4g"), _number(iqr_spread_pct(timing), ".2f"),
                         _number(derived.get("tokens_per_s"), ",.0f"),
                         _number(derived.get("achieved_gbs"), ".1f"),
                         _number(derived.get("floor_pct"), ".3g"), check_summary(case)])
    if not rows:
        return paragraph("No case in the inputs was timed.")
    first_number = 2 + len(gpu_column)
    headers = ["file", *gpu_column, "case", "median ms", "IQR spread %", "tokens/s", "GB/s", "% of floor",
               "check"]
    return table(headers, rows, numeric_columns=tuple(range(first_number, first_number + 5)))


def failed_and_skipped(results: list[ResultFile]) -> str:
    rows = [[_file(result), case["name"], case["status"], case.get("reason", ""), case.get("reproduce", "")]
            for result in results for case in result.cases if case["status"] != "ok"]
    if not rows:
        return paragraph("No case failed or was skipped.")
    return table(["file", "case", "status", "reason", "reproduce"], rows)


def checks(results: list[ResultFile]) -> str:
    """Per file and family, how many cases and checks; then every failing tensor, then the passing ones
    nearest their thresholds, since those are the next to fail."""
    tensors = [(result, case, tensor) for result in results for case in result.cases if "check" in case
               for tensor in case["check"]["tensors"]]
    if not tensors:
        return paragraph("No case in the inputs was checked.")
    failing = [entry for entry in tensors if not entry[2]["passed"]]
    measured = [entry for entry in tensors if entry[2]["passed"] and threshold_ratio(entry[2]) is not None]
    closest = sorted(measured, key=lambda entry: -threshold_ratio(entry[2]))[:CLOSEST_TENSORS_SHOWN]
    return "".join([
        table(["file", "family", "cases", *STATUSES, "checks failed"], _family_rows(results),
              numeric_columns=(2, 3, 4, 5, 6)),
        "<h3>Failing tensors</h3>\n",
        table(TENSOR_HEADERS, _tensor_rows(failing), TENSOR_NUMERIC_COLUMNS) if failing
        else paragraph("No tensor failed its check."),
        f"<h3>Closest to their thresholds (passing; top {CLOSEST_TENSORS_SHOWN})</h3>\n",
        table(TENSOR_HEADERS, _tensor_rows(closest), TENSOR_NUMERIC_COLUMNS)])


def _family_rows(results: list[ResultFile]) -> list[list]:
    """Per file with checks and per check family: cases by status, and failed checks."""
    rows = []
    for result in (result for result in results if any("check" in case for case in result.cases)):
        families = {}
        for case in result.cases:
            counts = families.setdefault(case.get("family", NO_FAMILY),
                                         dict.fromkeys((*STATUSES, "checks failed"), 0))
            counts[case["status"]] += 1
            counts["checks failed"] += "check" in case and not case["check"]["passed"]
        rows += [[_file(result), family, sum(counts[status] for status in STATUSES), *counts.values()]
                 for family, counts in sorted(families.items())]
    return rows


def _tensor_rows(entries) -> list[list]:
    return [[_file(result), case["name"], tensor["tensor"], _number(tensor["rms_ratio"], ".3g"),
             _number(tensor["threshold"], ".3g"), _number(threshold_ratio(tensor), ".3g"),
             tensor["nonfinite"], tensor.get("detail", "")]
            for result, case, tensor in entries]


def history_runs(history: dict) -> str:
    """The runs and the rule behind the history figures."""
    rule = ", ".join(f"{key} {value}" for key, value in history.get("settings", {}).items()) or "not given"
    rows = [[run.get("started_utc", "?"), run.get("gpu", "?"), run.get("git_sha", "?"), run.get("file", "?")]
            for run in history["runs"]]
    return (paragraph(f"{len(rows)} runs, {len(history['cases'])} cases; step detection: {rule}.")
            + table(["started (UTC)", "GPU", "git sha", "file"], rows))


def figures(sink: FigureSink) -> str:
    """Each figure as its PNG, linked to its SVG, with its caption; then why any figure kind is missing.
    The sink must have written both formats, as report.py asks it to."""
    parts = []
    for figure in sink.written:
        by_format = {os.path.splitext(path)[1]: escape(quote(os.path.basename(path)))
                     for path in figure.paths}
        png, svg, stem = by_format[".png"], by_format[".svg"], escape(figure.stem)
        parts.append(f'<figure id="{stem}"><a href="{svg}"><img src="{png}" alt="{stem}"></a>\n'
                     f"<figcaption><b>{stem}</b>: {escape(figure.caption)} "
                     f'<a href="{svg}">SVG</a></figcaption></figure>\n')
    if not sink.written:
        parts.append(paragraph("The inputs allow no figure."))
    if sink.notes:
        notes = "".join(f"<li>{escape(note)}</li>\n" for note in sink.notes)
        parts.append(f"<h3>Not drawn</h3>\n<ul>\n{notes}</ul>\n")
    return "".join(parts)
