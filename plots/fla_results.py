"""Reading fla-bench result and history files, and the case helpers both plot_results.py and report.py use.

Only the keys the figures and the report read are checked here: results/schema/result.schema.json is the full
contract, and results/SCHEMA.md says what each key means. A file these scripts cannot read raises InputError,
whose message names the file and fits on one line, so the command line tools can refuse it with exit status 2.
"""

import argparse
import json
import lzma
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

RESULT_SCHEMA = "fla-bench-result"
HISTORY_SCHEMA = "fla-bench-history"
READABLE_MAJOR_VERSION = "1"
INPUT_ERROR_EXIT_STATUS = 2  # a file refused
OUTPUT_ERROR_EXIT_STATUS = 1  # the output folder cannot be written

MODE_ORDER = ("fwd", "fwdbwd")
DTYPE_ORDER = ("fp32", "fp16", "bf16")

_CASE_KEYS = ("name", "op", "variant", "mode", "dtype", "axes", "status")
_AXES_KEYS = ("B", "T", "H", "K", "V", "chunk_size")
_TIMING_KEYS = ("median_ms", "q1_ms", "q3_ms")
_DERIVED_KEYS = ("tokens_per_s", "achieved_gbs", "floor_pct")
_CHECK_KEYS = ("passed", "tensors")
_TENSOR_KEYS = ("tensor", "rms_ratio", "threshold", "nonfinite", "passed")
_FLAG_KEYS = ("run", "direction", "change_pct")


class InputError(Exception):
    """A result or history file these scripts refuse to read."""


@dataclass(frozen=True)
class ResultFile:
    """One result file as read: a complete run, or a .partial file of a run in progress or one that died."""

    path: str
    context: dict
    cases: list
    complete: bool

    @property
    def gpu(self) -> str:
        """The device name, which is what tells runs on different GPUs apart in the figures."""
        device = self.context.get("device", {})
        return device.get("name") or device.get("backend") or "unknown device"


@dataclass(frozen=True)
class GpuCase:
    """A case together with the GPU it ran on, for figures that compare or separate GPUs."""

    gpu: str
    case: dict


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """The inputs both command line tools take: result files or folders, and an optional history file."""
    parser.add_argument("results", nargs="+", metavar="RESULTS",
                        help="result files (.json or .partial) or folders of *.json result files")
    parser.add_argument("--history", metavar="HISTORY_JSON", help="the file `fla-bench history --out` wrote")


def run_tool(parser: argparse.ArgumentParser, argv: list[str] | None,
             produce: Callable[[argparse.Namespace, list[ResultFile], dict | None], None]) -> int:
    """The body of both command line tools: parse argv, read the results and history add_input_arguments()
    named, then produce(args, results, history). A file that cannot be read or an output that cannot be
    written ends it with one error line and the tools' exit status for each."""
    args = parser.parse_args(argv)
    try:
        results = load_results(args.results)
        history = load_history(args.history) if args.history else None
    except InputError as error:
        return _error(parser.prog, error, INPUT_ERROR_EXIT_STATUS)
    try:
        produce(args, results, history)
    except OSError as error:
        return _error(parser.prog, error, OUTPUT_ERROR_EXIT_STATUS)
    return 0


def _error(program: str, error: Exception, status: int) -> int:
    print(f"{program}: error: {error}", file=sys.stderr)
    return status


def expand_inputs(paths: list[str]) -> list[str]:
    """Result file paths from the command line: a folder stands for every *.json and *.json.xz file in it,
    sorted."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(os.path.join(path, name) for name in os.listdir(path)
                           if name.endswith((".json", ".json.xz")))
            if not found:
                raise InputError(f"{path}: no *.json or *.json.xz result files in this folder")
            files.extend(found)
        else:
            files.append(path)
    return files


def load_results(paths: list[str]) -> list[ResultFile]:
    """Reads every result file that the command line's files and folders name, in that order."""
    return [read_result_file(path) for path in expand_inputs(paths)]


def read_result_file(path: str) -> ResultFile:
    """Reads a final result file (.json, or xz-compressed) or a JSON Lines partial one (.partial, or
    .partial.xz as results/baselines keeps a run that stopped early)."""
    text = _read_text(path)
    if path.endswith((".partial", ".partial.xz")):
        return _parse_partial(path, text)
    document = _parse_json(path, text)
    _check_header(path, document, RESULT_SCHEMA)
    cases = document.get("cases")
    if not isinstance(cases, list):
        raise InputError(f"{path}: no 'cases' list")
    for index, case in enumerate(cases):
        _check_case(path, f"case {index}", case)
    return ResultFile(path, _context(path, document), cases, bool(document.get("complete", False)))


def load_history(path: str) -> dict:
    """Reads the JSON that `fla-bench history --out FILE` writes; medians_ms must have one entry per run."""
    document = _parse_json(path, _read_text(path))
    _check_header(path, document, HISTORY_SCHEMA)
    runs, cases = document.get("runs"), document.get("cases")
    if not isinstance(runs, list) or not isinstance(cases, list):
        raise InputError(f"{path}: needs a 'runs' list and a 'cases' list")
    for case in cases:
        medians = case.get("medians_ms") if isinstance(case, dict) else None
        if not isinstance(medians, list) or len(medians) != len(runs) or "name" not in case:
            raise InputError(f"{path}: each case needs a name and one medians_ms entry per run ({len(runs)})")
        for flag in case.get("flags", []):
            _check_flag(path, case["name"], flag, len(runs))
    return document


def _check_flag(path: str, case_name: str, flag, run_count: int) -> None:
    """A flag must name one of the runs and say which way and how far the median moved."""
    if not isinstance(flag, dict) or any(key not in flag for key in _FLAG_KEYS):
        raise InputError(f"{path}: {case_name}: a flag lacks one of {', '.join(_FLAG_KEYS)}")
    if not isinstance(flag["run"], int) or not 0 <= flag["run"] < run_count:
        raise InputError(f"{path}: {case_name}: a flag names run {flag['run']}, "
                         f"not one of the {run_count} runs")


_XZ_MAGIC = b"\xfd7zXZ\x00"


def _read_text(path: str) -> str:
    """The file's text, decompressed where it is xz (told by its magic bytes, as fla-bench does)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
        if data.startswith(_XZ_MAGIC):
            data = lzma.decompress(data)
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError, lzma.LZMAError) as error:
        if isinstance(error, OSError):
            reason = error.strerror
        elif isinstance(error, lzma.LZMAError):
            reason = f"damaged xz data ({error})"
        else:
            reason = "not UTF-8 text"
        raise InputError(f"{path}: cannot read: {reason}") from None


def _parse_json(path: str, text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not valid JSON ({error})") from None


def _parse_partial(path: str, text: str) -> ResultFile:
    """Line 1 is the header, every further line one {"case": ...}. A last line cut short is dropped, because
    that is what a crash mid-append leaves; a bad line anywhere else means the file is damaged: refused."""
    lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise InputError(f"{path}: empty file")
    records = []
    for index, (number, line) in enumerate(lines):
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as error:
            if index > 0 and index == len(lines) - 1:
                break
            raise InputError(f"{path}: line {number}: not valid JSON ({error})") from None
    (_, header), case_records = records[0], records[1:]
    _check_header(path, header, RESULT_SCHEMA)
    cases = []
    for number, record in case_records:
        case = record.get("case") if isinstance(record, dict) else None
        _check_case(path, f"line {number}", case)
        cases.append(case)
    return ResultFile(path, _context(path, header), cases, complete=False)


def _check_header(path: str, document, schema: str) -> None:
    if not isinstance(document, dict):
        raise InputError(f"{path}: not a {schema} file (no top-level JSON object)")
    found = document.get("schema")
    if found != schema:
        raise InputError(f"{path}: not a {schema} file (schema {json.dumps(found)})")
    version = document.get("schema_version")
    if not isinstance(version, str) or version.split(".")[0] != READABLE_MAJOR_VERSION:
        raise InputError(f"{path}: schema_version {json.dumps(version)} cannot be read "
                         f"(these scripts read {READABLE_MAJOR_VERSION}.x)")


def _context(path: str, document: dict) -> dict:
    context = document.get("context")
    if not isinstance(context, dict) or not isinstance(context.get("device"), dict):
        raise InputError(f"{path}: no 'context' object with a 'device'")
    return context


def _check_case(path: str, where: str, case) -> None:
    """Checks the keys the figures and report index, so a damaged file is refused up front, not by a crash."""
    if not isinstance(case, dict):
        raise InputError(f"{path}: {where}: not a case object")
    required = [(case, key) for key in _CASE_KEYS]
    if isinstance(case.get("axes"), dict):
        required += [(case["axes"], key) for key in _AXES_KEYS]
    for section, keys in (("timing", _TIMING_KEYS), ("derived", _DERIVED_KEYS), ("check", _CHECK_KEYS)):
        if section in case:
            required += [(case[section], key) for key in keys]
    check = case.get("check")
    if isinstance(check, dict) and isinstance(check.get("tensors"), list):
        required += [(tensor, key) for tensor in check["tensors"] for key in _TENSOR_KEYS]
    for holder, key in required:
        if not isinstance(holder, dict) or key not in holder:
            raise InputError(f"{path}: {where}: '{key}' is missing")


def gpu_slug(name: str) -> str:
    """A file-name-safe form of a GPU name, the one `fla-bench history` names its store folders with:
    "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "unknown-device"


def group_key(case: dict) -> tuple[str, str, str]:
    """Figures are drawn per (op, mode, dtype): times of different ops, modes or dtypes are not comparable."""
    return case["op"], case["mode"], case["dtype"]


def group_sort_key(key: tuple[str, str, str]) -> tuple:
    """Orders (op, mode, dtype) groups by op, then forward before backward, then fp32, fp16, bf16."""
    op, mode, dtype = key
    return op, _index_or_end(MODE_ORDER, mode), _index_or_end(DTYPE_ORDER, dtype)


def _index_or_end(order: tuple, value: str) -> tuple[int, str]:
    return (order.index(value) if value in order else len(order)), value


def group_by(items, key) -> dict:
    """Groups items by key(item), keys sorted, each group in input order."""
    groups = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return dict(sorted(groups.items()))


def latest_timed_cases(results: list[ResultFile]) -> list[GpuCase]:
    """Timed cases that ran ok, one per (GPU, case name). Where several inputs hold the same case on the
    same GPU, the one given last wins, so listing a re-run after the old file updates the figures. Cases that
    failed their check are left out: a wrong kernel's speed is not worth plotting."""
    chosen = {}
    for result in results:
        for case in result.cases:
            if case["status"] == "ok" and "timing" in case and "derived" in case:
                chosen[(result.gpu, case["name"])] = GpuCase(result.gpu, case)
    return list(chosen.values())


def variant_label(case: dict) -> str:
    """The variant, with its chunk size where it has one: chunk sizes of one variant are separate series."""
    chunk = case["axes"]["chunk_size"]
    return f"{case['variant']} C{chunk}" if chunk else case["variant"]


def shape_label(axes: dict) -> str:
    """The shape as case names write it: B8-T1024-H8-K64-V64."""
    return "-".join(f"{axis}{axes[axis]}" for axis in ("B", "T", "H", "K", "V"))


def heads_label(axes: dict) -> str:
    """Batch, heads and head dims without T, for the lines of a plot against T: "B8 H8 D64" (or "K64 V32")."""
    dims = f"D{axes['K']}" if axes["K"] == axes["V"] else f"K{axes['K']} V{axes['V']}"
    return f"B{axes['B']} H{axes['H']} {dims}"


def threshold_ratio(tensor: dict) -> float | None:
    """rms_ratio / threshold, where 1 is the pass limit; None for count checks (threshold 0)."""
    return tensor["rms_ratio"] / tensor["threshold"] if tensor["threshold"] > 0 else None


def worst_threshold_ratio(check: dict) -> float | None:
    """The check's tensor that came closest to (or furthest past) its threshold."""
    ratios = [ratio for ratio in map(threshold_ratio, check["tensors"]) if ratio is not None]
    return max(ratios) if ratios else None


def failed_tensors(check: dict) -> list[str]:
    """Names of the tensors that failed, in the check's order."""
    return [tensor["tensor"] for tensor in check["tensors"] if not tensor["passed"]]


def iqr_spread_pct(timing: dict) -> float | None:
    """Interquartile range as % of the median: how much the samples spread, independent of the case's size."""
    median = timing["median_ms"]
    return (timing["q3_ms"] - timing["q1_ms"]) / median * 100 if median > 0 else None
