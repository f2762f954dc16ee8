#!/usr/bin/env python3
"""Two `fla-bench check` results side by side: did a kernel change move its errors?

usage: check-error-compare.py BASE.json NEW.json [--filter REGEX]   (either may be .json.xz)

--filter keeps the cases whose names the regex searches (e.g. '/fused_recurrent/' for one variant, whose
worst errors the others' would otherwise hide).

Prints each file's case counts by status; how many (case, tensor) errors are bit-for-bit the same in both, how
many changed, which tensors changed and by how much at most (a change meant to leave the arithmetic alone
should show none, or only where it says); every case that failed in NEW; how many cases only one file holds
(a check added since BASE); then, per dtype, op and tensor (the decay family apart: its cases sit at the decay
floor), the worst RMS error ratio in BASE and in NEW over the errors both files hold, marked where NEW's is
over 1.2x BASE's. kernels/notes/chunk.md quotes these. Exits 2 with one line on a file it cannot
read as a check result.
"""

import collections
import re
import signal
import sys

from result_file import read_cases


def fail(message):
    print(f"check-error-compare.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path, keep):
    try:
        cases = [case for case in read_cases(path) if keep.search(case["name"])]
    except (OSError, ValueError, KeyError, TypeError) as error:
        fail(f"{path}: not a check result with cases ({error.__class__.__name__}: {error})")
    errors = {}
    for case in cases:
        for tensor in case.get("check", {}).get("tensors", []) if case.get("status") in ("ok", "failed") else []:
            errors[(case["name"], tensor["tensor"])] = (tensor["rms_ratio"], case)
    return cases, errors


def group(case, tensor):
    return (case["dtype"], "decay" if case["family"] == "decay" else "other", case["op"], tensor)


def main(argv):
    if len(argv) == 5 and argv[3] == "--filter":
        try:
            keep = re.compile(argv[4])
        except re.error as error:
            fail(f"--filter {argv[4]!r}: not a regex ({error})")
    elif len(argv) == 3:
        keep = re.compile("")
    else:
        fail("usage: check-error-compare.py BASE.json NEW.json [--filter REGEX]   (either may be .json.xz)")
    (base_cases, base), (new_cases, new) = load(argv[1], keep), load(argv[2], keep)
    for path, cases in ((argv[1], base_cases), (argv[2], new_cases)):
        counts = collections.Counter(case.get("status", "?") for case in cases)
        print(f"{path}: {len(cases)} cases, " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    both = [key for key in new if key in base]
    changed = [key for key in both if new[key][0] != base[key][0]]
    print(f"errors in both: {len(both)}, bit-for-bit the same: {len(both) - len(changed)}, changed: {len(changed)}")
    if changed:
        by_tensor = collections.Counter(tensor for _, tensor in changed)
        print("  changed tensors: " + ", ".join(f"{tensor} {n}" for tensor, n in by_tensor.most_common()))
        # an error that was exactly 0 has no relative change: those are counted apart
        relative = [key for key in changed if base[key][0] != 0]
        from_zero = [key for key in changed if base[key][0] == 0]
        if relative:
            largest = max(relative, key=lambda key: abs(new[key][0] - base[key][0]) / base[key][0])
            ratio = abs(new[largest][0] - base[largest][0]) / base[largest][0]
            print(f"  largest relative change {ratio:.4f}: {largest[0]} {largest[1]} "
                  f"{base[largest][0]:.3e} -> {new[largest][0]:.3e}")
        if from_zero:
            largest = max(from_zero, key=lambda key: new[key][0])
            print(f"  {len(from_zero)} changed from exactly 0, the largest now {new[largest][0]:.3e}: "
                  f"{largest[0]} {largest[1]}")
    for case in new_cases:
        if case.get("status") == "failed":
            bad = [f"{t['tensor']} {t['rms_ratio']:.2e}" for t in case["check"]["tensors"] if not t["passed"]]
            print(f"FAILED {case['name']}: {', '.join(bad)}")
    base_names, new_names = {case["name"] for case in base_cases}, {case["name"] for case in new_cases}
    if base_names != new_names:
        print(f"cases only in NEW: {len(new_names - base_names)}, only in BASE: {len(base_names - new_names)} "
              "(their errors are left out of the worst errors below)")
    worst = {}
    for label, errors in (("base", base), ("new", new)):
        for (name, tensor), (ratio, case) in errors.items():
            if (name, tensor) not in base or (name, tensor) not in new:
                continue
            key = group(case, tensor)
            slot = worst.setdefault(key, {})
            slot[label] = max(slot.get(label, 0.0), ratio)
    print("dtype family op         tensor  worst base -> worst new")
    for key in sorted(worst):
        was, now = worst[key].get("base"), worst[key].get("new")
        if not now:
            continue
        mark = f"  <-- {now / was:.2f}x" if was and now > 1.2 * was else ""
        shown = f"{was:.2e}" if was is not None else "-"
        print(f"{key[0]:5} {key[1]:6} {key[2]:10} {key[3]:6}  {shown} -> {now:.2e}{mark}")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    main(sys.argv)
