#!/usr/bin/env python3
"""Issue 10's per-token target for gsa's fused_recurrent, at least as fast per token as gla's fused_recurrent
times two, as a markdown grid from one fla-bench run that timed both.

usage: gsa-gla-table.py RESULT.json   (RESULT may be .json.xz)

A row per mode and dtype (and slot count, where the run has gsa at more than one), a column per shape
(B,T,H,D with K = V, in the run's order): gsa's median / gla's median = their ratio, "(over)" past 2; a last
line counts the cells over. Only gsa's cases with one query head a state pair (G = 1) meet gla's. A run with
no such pair is refused (exit 2, one line), as is a file that is not a result.
"""

import sys

from result_file import read_cases

LIMIT = 2.0  # gsa's time over gla's
DTYPES = ("bf16", "fp16", "fp32")


def medians(path):
    """{(op, mode, dtype, "B,T,H,D", M): median ms} of the run's timed fused_recurrent cases of gsa (G = 1) and
    gla with K = V (gla's M is 0)."""
    found = {}
    for case in read_cases(path):
        axes = case.get("axes", {})
        if (case.get("variant") != "fused_recurrent" or case.get("op") not in ("gsa", "gla")
                or case.get("status") != "ok" or "timing" not in case or axes.get("K") != axes.get("V")
                or axes.get("G", 1) != 1):
            continue
        shape = f"{axes['B']},{axes['T']},{axes['H']},{axes['K']}"
        key = (case["op"], case["mode"], case["dtype"], shape, axes.get("M", 0) if case["op"] == "gsa" else 0)
        found[key] = case["timing"]["median_ms"]
    return found


def table(found):
    """The grid's text and its number of cells."""
    pairs = {(mode, dtype, shape, M): (ms, found[("gla", mode, dtype, shape, 0)])
             for (op, mode, dtype, shape, M), ms in found.items()
             if op == "gsa" and ("gla", mode, dtype, shape, 0) in found}
    shapes = list(dict.fromkeys(shape for _, _, shape, _ in pairs))
    slot_counts = {M for *_, M in pairs}

    def row_order(row):  # forward first, then the dtypes from the narrowest, then M
        mode, dtype, M = row
        return (mode != "fwd", DTYPES.index(dtype) if dtype in DTYPES else len(DTYPES), M)

    rows = sorted({(mode, dtype, M) for mode, dtype, _, M in pairs}, key=row_order)
    lines = ["| mode, dtype | " + " | ".join(shapes) + " |", "|---|" + "---|" * len(shapes)]
    over = 0
    for mode, dtype, M in rows:
        cells = []
        for shape in shapes:
            if (mode, dtype, shape, M) not in pairs:
                cells.append("-")
                continue
            gsa, gla = pairs[(mode, dtype, shape, M)]
            ratio = gsa / gla
            over += ratio > LIMIT
            cells.append(f"{gsa:.3f} / {gla:.3f} = {ratio:.2f}" + (" (over)" if ratio > LIMIT else ""))
        label = f"{mode} {dtype}" + (f" M{M}" if len(slot_counts) > 1 else "")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\nover {LIMIT:g}: {over} of {len(pairs)}", len(pairs)


def main(argv):
    if len(argv) != 2:
        print("usage: gsa-gla-table.py RESULT.json", file=sys.stderr)
        return 2
    try:
        text, cells = table(medians(argv[1]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"gsa-gla-table.py: {argv[1]}: not a readable result ({error.__class__.__name__}: {error})",
              file=sys.stderr)
        return 2
    if cells == 0:
        print(f"gsa-gla-table.py: {argv[1]} has no timed gsa and gla fused_recurrent cases of one shape, mode and "
              "dtype", file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
