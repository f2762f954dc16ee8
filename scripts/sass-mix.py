#!/usr/bin/env python3
"""Every kernel's SASS instruction mix, as compiled (static counts, not executions), from `cuobjdump -sass`.

usage: cuobjdump -sass BINARY | sass-mix.py [--table]
       sass-mix.py MIX.jsonl[.xz] --table

Without --table: one JSON line per kernel, {"function": mangled name, "total": instructions, "ops": {opcode:
count}} (NOPs left out), to keep beside a run. With --table: the kernels the compiler gave work around an
operation, most first: run-time integer divisions (I2F.*.RP, the reciprocal that starts the ~20-instruction
sequence of a division or modulo by a value known only at run time), IEEE float divisions (FCHK), calls
(CALL.*) and spill stores and loads (STL, LDL), with the demangled name where c++filt is on PATH. Input is
cuobjdump's text or this script's own JSON lines, either maybe xz-compressed. Exits 2 with one line on input
that is neither.
"""

import json
import re
import shutil
import signal
import subprocess
import sys

from result_file import read_bytes

INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)")


def fail(message):
    print(f"sass-mix.py: {message}", file=sys.stderr)
    sys.exit(2)


def mix_from_sass(lines):
    """cuobjdump -sass text -> [{"function", "total", "ops"}] in the order the functions appear."""
    kernels, ops = [], None
    for line in lines:
        if "Function : " in line:
            ops = {}
            kernels.append({"function": line.split("Function : ", 1)[1].strip(), "ops": ops})
            continue
        match = INSTRUCTION.search(line)
        if match and ops is not None and match.group(1) != "NOP":
            ops[match.group(1)] = ops.get(match.group(1), 0) + 1
    for kernel in kernels:
        kernel["total"] = sum(kernel["ops"].values())
    return kernels


def read_input(path):
    if path is None:
        return sys.stdin.read().splitlines()
    try:
        return read_bytes(path).decode().splitlines()
    except (OSError, ValueError) as error:  # ValueError: a damaged xz file, or text that is not UTF-8
        fail(f"cannot read {path}: {error}")


def kernels_of(lines):
    first = next((line for line in lines if line.strip()), "")
    if first.lstrip().startswith("{"):
        try:
            return [json.loads(line) for line in lines if line.strip()]
        except json.JSONDecodeError as error:
            fail(f"not this script's JSON lines: {error}")
    kernels = mix_from_sass(lines)
    if not kernels:
        fail("no 'Function :' in the input: not the output of cuobjdump -sass")
    return kernels


def demangled(names):
    if not shutil.which("c++filt"):
        return names
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return out if len(out) == len(names) else names


def count(ops, test):
    return sum(n for op, n in ops.items() if test(op))


def table(kernels):
    rows = []
    for kernel, name in zip(kernels, demangled([k["function"] for k in kernels])):
        ops = kernel["ops"]
        row = (count(ops, lambda op: op.startswith("I2F") and ".RP" in op), ops.get("FCHK", 0),
               count(ops, lambda op: op.startswith("CALL")), count(ops, lambda op: op.startswith("STL")),
               count(ops, lambda op: op.startswith("LDL")), kernel["total"], name)
        if any(row[:5]):
            rows.append(row)
    rows.sort(key=lambda row: (-row[0], -row[1], -row[2], row[6]))
    print("divisions  FCHK  calls  STL  LDL  instructions  kernel")
    for row in rows:
        print(f"{row[0]:9d} {row[1]:5d} {row[2]:6d} {row[3]:4d} {row[4]:4d} {row[5]:13d}  {row[6]}")
    print(f"{len(rows)} of {len(kernels)} kernels")


def main(argv):
    args = [a for a in argv if a != "--table"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        fail("usage: sass-mix.py [MIX.jsonl[.xz] | SASS.txt[.xz]] [--table]")
    kernels = kernels_of(read_input(args[0] if args else None))
    if "--table" in argv:
        table(kernels)
    else:
        for kernel in kernels:
            print(json.dumps({"function": kernel["function"], "total": kernel["total"], "ops": kernel["ops"]}))


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main(sys.argv[1:])
