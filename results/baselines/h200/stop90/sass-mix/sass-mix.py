#!/usr/bin/env python3
# Reads `cuobjdump -sass` on stdin; writes per-kernel opcode counts (static, as compiled) as JSON lines:
# {"function": mangled, "total": n, "ops": {opcode: count}} -- the instruction mix of every kernel.
import json, re, sys
fn, ops = None, {}
ins = re.compile(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)')
def flush():
    if fn is not None:
        ops.pop('NOP', None)
        print(json.dumps({'function': fn, 'total': sum(ops.values()), 'ops': ops}))
for line in sys.stdin:
    if 'Function : ' in line:
        flush(); fn = line.split('Function : ', 1)[1].strip(); ops = {}
        continue
    m = ins.search(line)
    if m and fn is not None:
        ops[m.group(1)] = ops.get(m.group(1), 0) + 1
flush()
