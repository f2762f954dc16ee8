#!/usr/bin/env python3
"""One run of each profiled case on the GPU's clock: which stream ran which kernel when (`fla-bench profile`
records it as the case's `timeline`, results/SCHEMA.md).

usage: timeline.py RESULT.json [--filter REGEX]   (RESULT may be .json.xz)

Per case: its wall time (first start to last end of the run), then per stream its launches, busy time and
span, then every launch in order of start (stream, start, end, length in microseconds, the kernel without its
namespaces). A variant that spreads its work over several streams shows here which stream's chain of launches
ends last and where it waited. Exits 2 with one line on a file it cannot read, or when no case matching has a
timeline (a run without `profile`, or a schema before 1.4).
"""

import re
import signal
import sys

from result_file import read_cases


def fail(message):
    print(f"timeline.py: {message}", file=sys.stderr)
    sys.exit(2)


def short(kernel):
    """"flabench::fused::kernel<flabench::GlaForm, 8>" -> "kernel<GlaForm, 8>"."""
    return re.sub(r"\b[A-Za-z_][A-Za-z0-9_]*::", "", kernel)


def case_lines(case):
    launches = case["timeline"]
    wall = max(launch["end_ms"] for launch in launches)
    lines = [f"{case['name']}: {len(launches)} launches on "
             f"{len({launch['stream'] for launch in launches})} streams, {wall * 1e3:.1f} us"]
    lines.append("  stream  launches   busy us   first us    last us")
    for stream in sorted({launch["stream"] for launch in launches}):
        mine = [launch for launch in launches if launch["stream"] == stream]
        busy = sum(launch["end_ms"] - launch["start_ms"] for launch in mine)
        lines.append(f"  {stream:6d}  {len(mine):8d}  {busy * 1e3:8.1f}  {min(l['start_ms'] for l in mine) * 1e3:9.1f}"
                     f"  {max(l['end_ms'] for l in mine) * 1e3:9.1f}")
    lines.append("  stream   start us     end us   length  kernel")
    for launch in launches:
        start, end = launch["start_ms"] * 1e3, launch["end_ms"] * 1e3
        lines.append(f"  {launch['stream']:6d}  {start:9.1f}  {end:9.1f}  {end - start:7.1f}  {short(launch['kernel'])}")
    return lines


def main(argv):
    args = argv[1:]
    pattern = ""
    if "--filter" in args:
        at = args.index("--filter")
        if at + 1 >= len(args):
            fail("--filter needs a regular expression")
        pattern = args[at + 1]
        del args[at:at + 2]
    if len(args) != 1:
        fail("usage: timeline.py RESULT.json [--filter REGEX]")
    try:
        keep = re.compile(pattern)
    except re.error as error:
        fail(f"--filter '{pattern}' is not a regular expression ({error})")
    try:
        cases = [case for case in read_cases(args[0]) if keep.search(case["name"])]
    except (OSError, ValueError, KeyError, TypeError) as error:
        fail(f"{args[0]}: not a result file with cases ({error.__class__.__name__}: {error})")
    traced = [case for case in cases if case.get("timeline")]
    if not traced:
        fail(f"{args[0]}: no case{' matching ' + repr(pattern) if pattern else ''} has a timeline "
             "(record one with `fla-bench profile`)")
    for i, case in enumerate(traced):
        if i:
            print()
        print("\n".join(case_lines(case)))


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main(sys.argv)
