#!/usr/bin/env python3
"""Executed warp instructions by SASS opcode in each kernel of call 6's ncu source pages (source-<i>.csv.gz:
0 the forward, 1 dq's pass, 2 dk's, 3 dv's, 4 the gate scan), in thousands, largest differences from the
forward first. usage: opcode-mix.py [FOLDER]"""
import collections
import csv
import gzip
import os
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
names = ["forward", "dq", "dk", "dv"]
counts = {}
for i, name in enumerate(names):
    rows = list(csv.reader(gzip.open(os.path.join(folder, f"source-{i}.csv.gz"), "rt")))
    header = rows[1]
    source, executed = header.index("Source"), header.index("Instructions Executed")
    c = collections.Counter()
    for row in rows[2:]:
        if row and row[0] == "Kernel Name":
            break  # (the page lists its kernel twice: the first only)
        if len(row) <= executed or not row[source].split() or not row[executed].isdigit():
            continue  # (a kernel's name or header row)
        words = row[source].split()
        opcode = (words[1] if words[0].startswith("@") else words[0]).split(".")[0]
        c[opcode] += int(row[executed])
    counts[name] = c
opcodes = sorted(set().union(*counts.values()), key=lambda o: -(counts["dk"][o] - counts["forward"][o]))
print(f"{'opcode':10}" + "".join(f"{n:>10}" for n in names) + "   (thousands of warp instructions)")
for o in opcodes:
    values = [counts[n][o] / 1e3 for n in names]
    if max(values) >= 20:
        print(f"{o:10}" + "".join(f"{v:10.0f}" for v in values))
print(f"{'total':10}" + "".join(f"{sum(counts[n].values()) / 1e3:10.0f}" for n in names))
