#!/usr/bin/env python3
"""Where one kernel's instructions and warp stalls go, between its barriers, from ncu's source page.

usage: ncu-source-regions.py SOURCE.csv[.gz] [--warps W] [--ops N] [--by-count N] [--lines-run N] [--conflicts N]
                             [--roles BOUNDS NAMES]

SOURCE.csv is `ncu -i REPORT --page source --csv --print-source sass` of one kernel (a report taken with
--set full or --section SourceCounters). The SASS is cut after every BAR.SYNC; for each region it prints the
share of executed warp instructions, the share of warp-stall samples (a warp waiting at a barrier is sampled
at the instruction after it, so a region's samples include the wait for its opening barrier), and its
MUFU, HMMA and LDS counts; then the stall reasons over the whole kernel. kernels/notes/chunk.md quotes these.

--warps W (the launch's warps: blocks x warps a block) adds each region's instructions per warp, what one
warp runs through it; --ops N adds each region's N most executed opcodes with their share of the region
(e.g. IMAD-heavy staging: address work rather than data movement); --by-count N adds the N groups of SASS
lines that share an execution count, the most sampled first. The lines of one loop body run equally often,
and so do those only one role of warps runs (a copy warp beside math warps: kernels/notes/chunk.md, version
47), so a group's line count is what one trip of it issues and its samples are where the time goes. --lines-run N
prints, after all that, the SASS lines run exactly N times (one such group: its index, stall samples and
instruction), to read what a trip of it does.
Where the page has the shared-memory wavefront columns (--set full), each region and the whole kernel also
show their shared wavefronts and the share of them that is excess (bank conflicts: a 16-byte access whose
quarter warp touches a bank twice, kernels/notes/chunk.md, version 92); --conflicts N prints the N lines with
the most excess wavefronts (index, excess, wavefronts, SASS).
--roles BOUNDS NAMES (a warp-specialized kernel, whose roles' code lies in ranges of the page: BOUNDS the
ranges' cuts as line indices, `0,1116,1566,2816`, NAMES one name a range, `outputs,state,loads`) adds, for each
range, its stall samples, instructions and stall reasons (a role's samples are its warps' time), and with
--by-count its own groups of lines by execution count with their samples (lines only some of a role's warps
run, such as one warp's decays beside three copying warps, show as a group of their own).
"""

import argparse
import collections
import csv
import gzip
import re
import sys


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as text:
        rows = list(csv.reader(text))
    # A line naming the kernel starts each kernel's page (ncu 2025 with CUDA 13 may print one page twice).
    starts = [at for at, row in enumerate(rows) if row and row[0] == "Kernel Name"] or [0]
    pages = [rows[begin:end] for begin, end in zip(starts, starts[1:] + [len(rows)])]
    if any(page != pages[0] for page in pages[1:]):
        raise ValueError(f"{path}: {len(pages)} different source pages (kernels or launches); export one")
    for at, row in enumerate(pages[0]):  # the header holds "Address"
        if row and row[0] == "Address":
            return row, pages[0][at + 1:]
    raise ValueError(f"{path}: no header row starting with Address (not ncu's source page as CSV)")


def number(text):
    return float(text) if text else 0.0


def opcode(sass):
    """The mnemonic of one SASS line, its predicate and modifiers left off: `@!P0 IMAD.WIDE.U32 ...` -> IMAD."""
    match = re.match(r"\s*(?:@!?U?P\w+\s+)?([A-Z0-9_]+)", sass)
    return match.group(1) if match else "?"


def count_groups(rows, executed, sampled, total_executed, total_sampled, groups, samples_too=False):
    """The `groups` most sampled sets of lines that share an execution count (never-run lines left out);
    samples_too: each group's stall samples as a count as well."""
    by_count = collections.defaultdict(lambda: [0, 0.0, 0.0])  # lines, instructions, samples
    for row in rows:
        runs = number(row[executed])
        if runs:
            group = by_count[runs]
            group[0] += 1
            group[1] += runs
            group[2] += number(row[sampled])
    ranked = sorted(by_count.items(), key=lambda item: (-item[1][2], -item[1][1]))[:groups]
    return [f"lines run {runs:.0f} times each: {lines}, instructions {instructions / total_executed * 100:5.1f}%, "
            f"stall samples {samples / total_sampled * 100:5.1f}%" + (f" ({samples:.0f})" if samples_too else "")
            for runs, (lines, instructions, samples) in ranked]


def stall_reasons(header, rows, reasons, total_sampled, count=8):
    """The rows' `count` largest stall reasons as shares of `total_sampled`."""
    stalls = collections.Counter({name[len("stall_"):]: sum(number(row[header.index(name)]) for row in rows)
                                  for name in reasons})
    return ", ".join(f"{name} {value / total_sampled * 100:.1f}%" for name, value in stalls.most_common(count))


def role_lines(header, rows, roles, groups):
    """For each role's range of lines (roles: the cuts and one name a range): samples, instructions, stall
    reasons, and its `groups` most sampled groups of lines by execution count."""
    bounds, names = roles
    if len(names) != len(bounds) - 1 or bounds != sorted(set(bounds)) or bounds[-1] > len(rows):
        raise ValueError(f"--roles: {len(bounds)} increasing cuts within the page's {len(rows)} lines and one "
                         f"name a range between them, not {len(bounds)} cuts and {len(names)} names")
    executed = header.index("Instructions Executed")
    sampled = header.index("Warp Stall Sampling (All Samples)")
    reasons = [name for name in header if name.startswith("stall_") and "Not Issued" not in name]
    total_sampled = sum(number(row[sampled]) for row in rows) or 1.0
    lines = []
    for (begin, end), name in zip(zip(bounds, bounds[1:]), names):
        region = rows[begin:end]
        region_sampled = sum(number(row[sampled]) for row in region)
        region_executed = sum(number(row[executed]) for row in region)
        lines.append(f"role {name} [{begin}, {end}): stall samples {region_sampled:.0f} "
                     f"({region_sampled / total_sampled * 100:.1f}%), instructions {region_executed:.0f}; "
                     "stall reasons: " + stall_reasons(header, region, reasons, region_sampled or 1.0, 7))
        if groups and region_executed:
            lines += ["    " + text for text in count_groups(region, executed, sampled, region_executed,
                                                             region_sampled or 1.0, groups, True)]
    return lines


def lines_run(rows, source, executed, sampled, runs):
    """The SASS lines run exactly `runs` times: their index on the page, stall samples and instruction."""
    return [f"{at:6d} {number(row[sampled]):8.0f}  {row[source].strip()}" for at, row in enumerate(rows)
            if number(row[executed]) == runs]


WAVEFRONTS, EXCESS = "L1 Wavefronts Shared", "L1 Wavefronts Shared Excessive"


def shared_wavefronts(header, rows):
    """(wavefronts, excess) of the rows, or None where the page has no such columns."""
    if WAVEFRONTS not in header or EXCESS not in header:
        return None
    total, excess = header.index(WAVEFRONTS), header.index(EXCESS)
    return sum(number(row[total]) for row in rows), sum(number(row[excess]) for row in rows)


def wavefront_text(counts):
    if not counts or not counts[0]:
        return ""
    return f", shared wavefronts {counts[0]:.0f} ({counts[1] / counts[0] * 100:.0f}% excess)"


def conflicted_lines(header, rows, source, count):
    """The `count` lines with the most excess shared wavefronts: index, excess, wavefronts and SASS."""
    if shared_wavefronts(header, rows) is None:
        raise ValueError(f"--conflicts: the page has no '{EXCESS}' column (take the report with --set full)")
    total, excess = header.index(WAVEFRONTS), header.index(EXCESS)
    ranked = sorted((at for at, row in enumerate(rows) if number(row[excess])),
                    key=lambda at: -number(rows[at][excess]))[:count]
    return [f"{at:6d} {number(rows[at][excess]):10.0f} {number(rows[at][total]):10.0f}  "
            f"{rows[at][source].strip()}" for at in sorted(ranked)]


def summary(path, warps=None, ops=0, groups=0, runs=None, conflicts=0, roles=None):
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
            region_executed = sum(number(row[executed]) for row in region)
            line = (f"SASS lines [{start}, {end}): instructions {region_executed / total_executed * 100:5.1f}%, "
                    f"stall samples {sum(number(row[sampled]) for row in region) / total_sampled * 100:5.1f}%, "
                    f"MUFU {count('MUFU'):.0f}, HMMA {count('HMMA'):.0f}, LDS {count('LDS'):.0f}"
                    f"{wavefront_text(shared_wavefronts(header, region))}")
            if warps:
                line += f", {region_executed / warps:.0f} a warp"
            lines.append(line)
            if ops and region_executed > 0:
                by_opcode = collections.Counter()
                for row in region:
                    by_opcode[opcode(row[source])] += number(row[executed])
                lines.append("    " + ", ".join(f"{name} {value / region_executed * 100:.1f}%"
                                                for name, value in by_opcode.most_common(ops)))
        start = end
    per_warp = f" ({total_executed / warps:.0f} a warp)" if warps else ""
    lines.append(f"warp instructions executed {total_executed:.0f}{per_warp}; stall reasons: " +
                 stall_reasons(header, rows, reasons, total_sampled) +
                 wavefront_text(shared_wavefronts(header, rows)).replace(", shared", "; shared", 1))
    if groups:
        lines += count_groups(rows, executed, sampled, total_executed, total_sampled, groups)
    if roles:
        lines += role_lines(header, rows, roles, groups)
    if runs:
        lines.append(f"lines run {runs} times (index, stall samples, SASS):")
        lines += lines_run(rows, source, executed, sampled, runs)
    if conflicts:
        lines.append(f"the {conflicts} lines with the most excess shared wavefronts "
                     "(index, excess, wavefronts, SASS):")
        lines += conflicted_lines(header, rows, source, conflicts)
    return "\n".join(lines)


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        self.exit(2, f"ncu-source-regions.py: {message} (usage: ncu-source-regions.py SOURCE.csv[.gz] "
                     "[--warps W] [--ops N] [--by-count N] [--lines-run N] [--conflicts N] "
                     "[--roles BOUNDS NAMES])\n")


def positive(text):
    value = int(text)
    if value <= 0:
        raise ValueError(text)
    return value


def cuts(text):
    try:
        return [int(value) for value in text.split(",")]
    except ValueError:
        raise ValueError(f"--roles: the cuts are line indices separated by commas, not '{text}'") from None


def main(argv):
    parser = Parser(prog="ncu-source-regions.py")
    parser.add_argument("source")
    parser.add_argument("--warps", type=positive, help="the launch's warps (blocks x warps a block)")
    parser.add_argument("--ops", type=positive, default=0, help="most executed opcodes to show per region")
    parser.add_argument("--by-count", type=positive, default=0,
                        help="most sampled groups of lines with one execution count to show")
    parser.add_argument("--lines-run", type=positive, help="show the SASS lines run exactly this many times")
    parser.add_argument("--conflicts", type=positive, default=0,
                        help="show the lines with the most excess shared wavefronts (bank conflicts)")
    parser.add_argument("--roles", nargs=2, metavar=("BOUNDS", "NAMES"),
                        help="the roles' line ranges (cuts, comma-separated) and their names")
    args = parser.parse_args(argv[1:])
    try:
        roles = (cuts(args.roles[0]), args.roles[1].split(",")) if args.roles else None
        print(summary(args.source, args.warps, args.ops, args.by_count, args.lines_run, args.conflicts, roles))
    except (OSError, ValueError, csv.Error) as error:
        print(f"ncu-source-regions.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
