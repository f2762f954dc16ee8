#!/usr/bin/env python3
"""Two builds of one CUDA file side by side, kernel by kernel: SASS instructions, registers and spills.

usage: ptxas-compare.py BASE.ptxas BASE.cubin NEW.ptxas NEW.cubin

Each side is what one compile leaves, e.g.
  nvcc -I. -O3 -DNDEBUG -arch=sm_90 -lineinfo -std=c++20 -x cu -cubin -Xptxas -v kernels/gla/chunk.cu \\
       -o base.cubin 2> base.ptxas
(there is no disassembler on the CPU machine: a kernel's SASS instruction count is its .text section's size
over 16 bytes, read with readelf). Prints the kernels whose count, registers or spill bytes (stored/loaded)
differ, demangled, then how many kernels each side has and how many changed; kernels only one side compiled
are listed as such. The kernel notes' "ptxas" lines (kernels/notes/chunk.md) come from it. Exits 2 with one
line on a file it cannot read.
"""

import re
import subprocess
import sys


def fail(message):
    print(f"ptxas-compare.py: {message}", file=sys.stderr)
    sys.exit(2)


def kernels_of(ptxas_log, cubin):
    """{mangled name: {"regs", "spill", "sass"}} from ptxas -v's log and the cubin's section table."""
    try:
        with open(ptxas_log, errors="replace") as f:
            log = f.read()
    except OSError as e:
        fail(f"{ptxas_log}: {e.strerror}")
    info, current = {}, None
    for line in log.splitlines():
        if m := re.search(r"Compiling entry function '(\S+)'", line):
            current = m.group(1)
            info[current] = {}
        elif current and (m := re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)):
            info[current]["spill"] = (int(m.group(1)), int(m.group(2)))
        elif current and (m := re.search(r"Used (\d+) registers", line)):
            info[current]["regs"] = int(m.group(1))
    if not info:
        fail(f"{ptxas_log}: no 'Compiling entry function': not the log of nvcc -Xptxas -v")
    done = subprocess.run(["readelf", "-S", "-W", cubin], capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{cubin}: readelf cannot read it: {done.stderr.strip().splitlines()[-1] if done.stderr else ''}")
    for line in done.stdout.splitlines():
        m = re.search(r"\.text\.(\S+)\s+PROGBITS\s+\S+\s+\S+\s+([0-9a-fA-F]+)", line)
        if m and m.group(1) in info:
            info[m.group(1)]["sass"] = int(m.group(2), 16) // 16
    return info


def demangled(names):
    done = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    lines = done.stdout.splitlines() if done.returncode == 0 else []
    return dict(zip(names, lines)) if len(lines) == len(names) else {n: n for n in names}


def describe(old, new):
    def pair(key, show=str):
        return f"{show(old.get(key)) if old.get(key) is not None else '-'} -> " \
               f"{show(new.get(key)) if new.get(key) is not None else '-'}"
    spill = lambda s: f"{s[0]}/{s[1]}"
    return (f"SASS {pair('sass')} instructions; registers {pair('regs')}; "
            f"spill stores/loads {pair('spill', spill)} bytes")


def main(argv):
    if len(argv) != 5:
        fail("usage: ptxas-compare.py BASE.ptxas BASE.cubin NEW.ptxas NEW.cubin")
    base, new = kernels_of(argv[1], argv[2]), kernels_of(argv[3], argv[4])
    names = demangled(sorted(set(base) | set(new)))
    changed = 0
    for name in sorted(set(base) | set(new)):
        if name not in new or name not in base:
            print(f"  {names[name]}\n     only in {'BASE' if name in base else 'NEW'}")
            changed += 1
        elif base[name] != new[name]:
            print(f"  {names[name]}\n     {describe(base[name], new[name])}")
            changed += 1
    print(f"{len(base)} kernels in BASE, {len(new)} in NEW, {changed} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
