#!/usr/bin/env python3
"""Issues 4 and 5's speed table (markdown) from one fla-bench run of the chunk variant and FLA's H100 numbers.

usage: chunk-peer-table.py RESULT.json PEER.md   (RESULT may be .json.xz)

PEER.md is shared/anchors/peer-fla-h100.md: its rows `| op | chunk | mode | B,T,H,D | FLA ms | floor ms | ...`
give FLA's time P and the byte floor F of each shape. Per op, mode and shape of the run: the best chunk size,
every chunk size's median, P, F, and the target max(2F, P/3) forward, max(3F, P/3) forward+backward (issue 4;
rwkv7, issue 5: max(2.5F, P/3) and max(4F, P/3)). Where FLA
has no time (its simple_gla backward refuses on Hopper) the floor is the run's own at 3.0 TB/s and the target
3F. Shapes of the anchors that the run lacks are left out; a run with no chunk case is refused (exit 2).
"""

import sys

from peer_anchors import run
from result_file import read_cases

BANDWIDTH_BYTES_PER_MS = 3.0e9  # the anchors' copy rate, 3.00 TB/s
TARGET_FLOORS = {"fwd": 2, "fwdbwd": 3}  # multiples of the floor in the targets, by mode
OP_TARGET_FLOORS = {"rwkv7": {"fwd": 2.5, "fwdbwd": 4}}  # the ops whose issue sets others


def chunk_timings(path):
    """(op, mode, shape) -> {chunk size: (median ms, floor bytes)} of the run's timed chunk cases."""
    cases = read_cases(path)
    timings = {}
    for case in cases:
        if case.get("variant") != "chunk" or case.get("status") != "ok" or "timing" not in case:
            continue
        axes = case["axes"]
        shape = f"{axes['B']},{axes['T']},{axes['H']},{axes['K']}"
        timings.setdefault((case["op"], case["mode"], shape), {})[axes["chunk_size"]] = (
            case["timing"]["median_ms"], case["derived"]["floor_bytes"])
    return timings


def table(peer, timings):
    lines = ["| op | mode | B,T,H,D | ours ms (best C) | C16 / C32 / C64 ms | FLA ms | floor ms | x floor |"
             " FLA / ours | target ms | met |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    met = total = 0
    for key, (fla, floor) in peer.items():
        if key not in timings:
            continue
        op, mode, shape = key
        by_size = timings[key]
        best = min(by_size, key=lambda size: by_size[size][0])
        ours = by_size[best][0]
        if floor is None:
            floor = by_size[best][1] / BANDWIDTH_BYTES_PER_MS
        target = max(OP_TARGET_FLOORS.get(op, TARGET_FLOORS)[mode] * floor, fla / 3 if fla else 0.0)
        met += ours <= target
        total += 1
        sizes = " / ".join(f"{by_size[size][0]:.3f}" if size in by_size else "-" for size in (16, 32, 64))
        lines.append(f"| {op} | {mode} | {shape} | {ours:.3f} (C{best}) | {sizes} | {fla if fla else 'refused'} |"
                     f" {floor:.3f} | {ours / floor:.1f} | {f'{fla / ours:.2f}' if fla else '-'} | {target:.3f} |"
                     f" {'yes' if ours <= target else 'no'} |")
    return "\n".join(lines) + f"\n\ntargets met: {met} of {total}", total


def main(argv):
    return run(argv, "chunk-peer-table.py", "chunk", chunk_timings, table, "timed chunk case")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
