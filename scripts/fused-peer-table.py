#!/usr/bin/env python3
"""Issue 3's speed table (markdown) from one fla-bench run of the fused_recurrent variant and FLA's H100 times.

usage: fused-peer-table.py RESULT.json PEER.md   (RESULT may be .json.xz)

PEER.md is shared/anchors/peer-fla-h100.md. Per op, mode and shape of its fused_recurrent rows that the run has
in bf16: our median, FLA's, FLA / ours, the step latency (median / T, ns per token), the target and whether it
is met. Targets: forward, and forward+backward where FLA has one, at least 5x faster than FLA; rwkv7's
forward+backward (FLA has none) under 3x our own forward of the same shape in the same run. A run with no
such case is refused (exit 2).
"""

import sys

from peer_anchors import run
from result_file import read_cases

SPEEDUP = 5.0  # over FLA
RWKV7_BACKWARD_RATIO = 3.0  # forward+backward over our own forward


def fused_timings(path):
    """(op, mode, "B,T,H,D") -> (median ms, T) of the run's timed bf16 fused_recurrent cases (K = V)."""
    cases = read_cases(path)
    timings = {}
    for case in cases:
        if (case.get("variant") != "fused_recurrent" or case.get("dtype") != "bf16" or case.get("status") != "ok"
                or "timing" not in case):
            continue
        axes = case["axes"]
        shape = f"{axes['B']},{axes['T']},{axes['H']},{axes['K']}"
        timings[(case["op"], case["mode"], shape)] = (case["timing"]["median_ms"], axes["T"])
    return timings


def table(peer, timings):
    lines = ["| op | mode | B,T,H,D | ours ms | FLA ms | FLA / ours | ns per token | target ms | met |",
             "|---|---|---|---|---|---|---|---|---|"]
    met = total = 0
    for key, (fla, _) in peer.items():
        if key not in timings:
            continue
        op, mode, shape = key
        ours, T = timings[key]
        if fla is not None:
            target, against = fla / SPEEDUP, f"{fla:.3f} | {fla / ours:.2f}"
        elif (op, "fwd", shape) in timings:
            forward = timings[(op, "fwd", shape)][0]
            target, against = RWKV7_BACKWARD_RATIO * forward, f"none | ({ours / forward:.2f}x our fwd)"
        else:
            continue
        met += ours <= target
        total += 1
        lines.append(f"| {op} | {mode} | {shape} | {ours:.3f} | {against} | {ours * 1e6 / T:.0f} | {target:.3f} |"
                     f" {'yes' if ours <= target else 'no'} |")
    return "\n".join(lines) + f"\n\ntargets met: {met} of {total}", total


def main(argv):
    return run(argv, "fused-peer-table.py", "fused_recurrent", fused_timings, table, "timed bf16 fused_recurrent case")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
