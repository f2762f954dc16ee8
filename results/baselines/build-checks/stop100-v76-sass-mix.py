#!/usr/bin/env python3
"""How build-checks/stop100-v76-sass-mix.txt was made (stop 100; the CPU machine has no cuobjdump or
nvdisasm): static SASS opcode counts of the one-kernel chunk forwards, from cubins made with the build's own
nvcc command (compile_commands.json) and -arch=sm_90a -cubin.

  stop100-v76-sass-mix.py train LISTING.csv CUBIN FILTER   opcode map (low 12 bits of each instruction's first
                                                           word -> mnemonic) from ncu's SASS source page of a
                                                           kernel and the cubin of the same source
  stop100-v76-sass-mix.py cubin SOURCE.cu OUT.cubin        compile one file of the build to a cubin
  stop100-v76-sass-mix.py hist CUBIN [FILTER]              each kernel's instruction count and opcode mix

The map came from h200/chunk-versions/v71-ncu-stop100/source.csv.gz (main e077a3f's simple_gla K = 128 /
Vs = 32 kernel) against a cubin of e077a3f's chunk_fused_forward.cu: 2,744 of 2,744 instructions, 75 opcodes,
none ambiguous. Opcodes that kernel lacks print as '?xxx'. A record of the measurement, not a tool of the
suite (scripts/sass-mix.py reads cuobjdump's text where cuobjdump exists)."""
import collections
import csv
import gzip
import json
import re
import shlex
import struct
import subprocess
import sys

MAP = '/tmp/opmap.json'


def text_sections(path):
    out = subprocess.run(['readelf', '-SW', path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.search(r'\]\s+\.text\.(\S+)\s+PROGBITS\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)', line)
        if m:
            yield m.group(1), int(m.group(2), 16), int(m.group(3), 16)


def words(path, off, size):
    b = open(path, 'rb').read()[off:off + size]
    return [struct.unpack_from('<QQ', b, i) for i in range(0, size, 16)]


def key(w):
    return w[0] & 0xFFF


def main(argv):
    if argv[0] == 'train':
        listing, cubin, filt = argv[1:4]
        opener = gzip.open if listing.endswith('.gz') else open
        rows = list(csv.reader(opener(listing, 'rt')))[2:]
        name, off, size = next(s for s in text_sections(cubin) if filt in s[0])
        seen = collections.defaultdict(collections.Counter)
        for w, r in zip(words(cubin, off, size), rows):
            toks = r[1].split()
            seen[key(w)][(toks[1] if toks[0].startswith('@') else toks[0]).split('.')[0]] += 1
        assert all(len(v) == 1 for v in seen.values()), 'an opcode key with two mnemonics'
        json.dump({str(k): v.most_common(1)[0][0] for k, v in seen.items()}, open(MAP, 'w'))
    elif argv[0] == 'cubin':
        source, out = argv[1:3]
        cc = json.load(open('build/compile_commands.json'))
        e = next(x for x in cc if x['file'].endswith(source))
        args = shlex.split(e['command'])
        args[args.index('-o') + 1] = out
        args = [a for a in args if a != '-c' and not a.startswith('--generate-code')] + ['-arch=sm_90a', '-cubin']
        subprocess.run(args, cwd=e['directory'], check=True)
    else:
        cubin, filt = argv[1], argv[2] if len(argv) > 2 else ''
        opmap = json.load(open(MAP))
        for name, off, size in text_sections(cubin):
            if filt in name:
                c = collections.Counter(opmap.get(str(key(w)), '?%03x' % key(w)) for w in words(cubin, off, size))
                print(name, size // 16, dict(c.most_common()))


if __name__ == '__main__':
    main(sys.argv[1:])
