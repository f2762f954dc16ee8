#!/usr/bin/env python3
"""Where one kernel's instructions and warp stalls go, between its barriers, from ncu's source page.

usage: ncu-source-regions.py SOURCE.csv[.gz]

SOURCE.csv is `ncu -i REPORT --page source --csv --print-source sass` of one kernel (a report taken with
--set full or --section SourceCounters). The SASS is cut after every BAR.SYNC; for each region it prints the
share of executed warp instructions, the share of warp-stall samples (a warp waiting at a barrier is sampled
at the instruction after it, so a region's samples include the wait for its opening barrier), and its
MUFU, HMMA and LDS counts; then the stall reasons over the whole kernel. kernels/notes/chunk.md quotes these.
"""

import collections
import csv
import gzip
import sys


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as text:
        rows = list(csv.reader(text))
    for at, row in enumerate(rows):  # a line naming the kernel comes first; the header holds "Address"
        if row and row[0] == "Address":
            return row, rows[at + 1:]
    raise ValueError(f"{path}: no header row starting with Address (not ncu's source page as CSV)")


def number(text):
    return float(text) if text else 0.0


def summary(path):
    header, rows = read_rows(path)
    source, executed = header.index("Source"), header.index("Instructions Executed")
    sampled = header.index("Warp Stall Sampling (All Samples)")
    reasons = [name for name in header if name.startswith("stall_") and "Not Issued" not in name]
    total_executed = sum(number(row[executed]) for row in rows) or 1.0
    total_sampled = sum(number(row[sampled]) for row in rows) or 1.0
    lines = []
    start = 0
    cuts = [at + 1 for at, row in enumerate(rows) if "BAR.SYNC" in row[source]] + [len(rows)]
    for end in cuts:
        region = rows[start:end]
        if region:
            count = lambda opcode: sum(number(row[executed]) for row in region if opcode in row[source])
            lines.append(f"SASS lines [{start}, {end}): instructions "
                         f"{sum(number(row[executed]) for row in region) / total_executed * 100:5.1f}%, stall samples "
                         f"{sum(number(row[sampled]) for row in region) / total_sampled * 100:5.1f}%, MUFU "
                         f"{count('MUFU'):.0f}, HMMA {count('HMMA'):.0f}, LDS {count('LDS'):.0f}")
        start = end
    stalls = collections.Counter({name[len("stall_"):]: sum(number(row[header.index(name)]) for row in rows)
                                  for name in reasons})
    lines.append(f"warp instructions executed {total_executed:.0f}; stall reasons: " +
                 ", ".join(f"{name} {value / total_sampled * 100:.1f}%" for name, value in stalls.most_common(8)))
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2:
        print("usage: ncu-source-regions.py SOURCE.csv[.gz]", file=sys.stderr)
        return 2
    try:
        print(summary(argv[1]))
    except (OSError, ValueError, csv.Error) as error:
        print(f"ncu-source-regions.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
