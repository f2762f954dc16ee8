"""FLA's H100 times and the byte floors of shared/anchors/peer-fla-h100.md, and the command line of the
speed-table scripts that read them.

The anchors' rows read `| op | variant | mode | B,T,H,D | FLA ms | floor ms | ...`; FLA's cell is a time, or
words where FLA has none (no backward, refused on the GPU).
"""

import re
import sys

ROW = re.compile(r"\| (\w+) \| (\w+) \| (\w+) \| ([\d,]+) \|([^|]+)\|([^|]*)\|")


def peer_rows(path, variant):
    """(op, mode, "B,T,H,D") -> (FLA ms or None, floor ms or None) of `variant`, in the anchors' order."""
    rows = {}
    with open(path) as text:
        for line in text:
            match = ROW.match(line)
            if match and match.group(2) == variant:
                op, _, mode, shape, fla, floor = match.groups()
                fla = fla.strip()
                rows[(op, mode, shape)] = (float(fla) if re.fullmatch(r"[\d.]+", fla) else None,
                                           float(floor) if floor.strip() else None)
    return rows


def run(argv, script, variant, timings_of, table, what):
    """`script RESULT.json PEER.md`: prints table(peer rows of `variant`, timings_of(RESULT)) and returns 0; a
    usage line, or one error line for an unreadable file or a run with no `what` on the anchors' shapes, and 2."""
    if len(argv) != 3:
        print(f"usage: {script} RESULT.json PEER.md", file=sys.stderr)
        return 2
    try:
        text, rows = table(peer_rows(argv[2], variant), timings_of(argv[1]))
    except (OSError, ValueError, KeyError) as error:
        print(f"{script}: {error}", file=sys.stderr)
        return 2
    if rows == 0:
        print(f"{script}: {argv[1]} has no {what} on a shape of {argv[2]}", file=sys.stderr)
        return 2
    print(text)
    return 0
