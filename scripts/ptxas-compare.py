#!/usr/bin/env python3
"""Two builds of one CUDA file side by side, kernel by kernel: SASS instructions, registers and spills.

usage: ptxas-compare.py BASE.ptxas BASE.cubin NEW.ptxas NEW.cubin

Each side is what one compile leaves, e.g.
  nvcc -I. -O3 -DNDEBUG -arch=sm_90 -lineinfo -std=c++20 -x cu -cubin -Xptxas -v kernels/gla/chunk.cu \\
       -o base.cubin 2> base.ptxas
(there is no disassembler on the CPU machine: a kernel's SASS instruction count is its .text section's size
over 16 bytes, read with readelf). Prints the kernels whose count, registers or spill bytes (stored/loaded)
differ, demangled, then how many kernels each side has and how many changed. Kernels are paired by their
demangled names (an anonymous namespace's hash, which differs from build to build, is not in them), then a
kernel only one side has with the one kernel of the same name and template arguments only the other side has
(its parameters changed: shown both ways); kernels only one side compiled are listed as such. The kernel notes' "ptxas" lines (kernels/notes/chunk.md) come from it. Exits 2 with one
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


def without_parameters(name):
    """A demangled function name without its parameter list: up to the last top-level '(' of its end."""
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            return name[:i]
    return name


def by_demangled(kernels):
    names = demangled(sorted(kernels))
    return {names[k]: v for k, v in kernels.items()}


def pairs(base, new):
    """(base name, new name) for every kernel: the same name, or the one kernel on each side whose name
    without parameters matches where each side has it alone; None for a side that has no such kernel."""
    matched = [(n, n) for n in sorted(set(base) & set(new))]
    only_base, only_new = sorted(set(base) - set(new)), sorted(set(new) - set(base))
    stems = lambda names: [without_parameters(n) for n in names]
    base_stems, new_stems = stems(only_base), stems(only_new)
    for name, stem in zip(only_base, base_stems):
        if base_stems.count(stem) == 1 and new_stems.count(stem) == 1:
            matched.append((name, only_new[new_stems.index(stem)]))
    paired_base, paired_new = {b for b, _ in matched}, {n for _, n in matched}
    matched += [(b, None) for b in only_base if b not in paired_base]
    matched += [(None, n) for n in only_new if n not in paired_new]
    return sorted(matched, key=lambda p: p[0] or p[1])


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
    base = by_demangled(kernels_of(argv[1], argv[2]))
    new = by_demangled(kernels_of(argv[3], argv[4]))
    changed = 0
    for old_name, new_name in pairs(base, new):
        if old_name is None or new_name is None:
            print(f"  {old_name or new_name}\n     only in {'BASE' if old_name else 'NEW'}")
            changed += 1
        elif old_name != new_name:
            print(f"  {old_name}\n  -> {new_name}\n     parameters changed; {describe(base[old_name], new[new_name])}")
            changed += 1
        elif base[old_name] != new[new_name]:
            print(f"  {old_name}\n     {describe(base[old_name], new[new_name])}")
            changed += 1
    print(f"{len(base)} kernels in BASE, {len(new)} in NEW, {changed} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
