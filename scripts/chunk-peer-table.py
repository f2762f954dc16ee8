#!/usr/bin/env python3
# chunk-peer-table.py RESULT.json PEER.md: issue 4's speed table (markdown) from one fla-bench run of the
# chunk variant and FLA's H100 numbers (shared/anchors/peer-fla-h100.md): per op, mode and shape the best
# chunk size, every chunk size's median, FLA's time, the byte floor, and the target max(2F, P/3) forward,
# max(3F, P/3) forward+backward (where FLA refuses, the floor is ours at 3.0 TB/s and the target 3F).
import json, re, sys

if len(sys.argv) != 3:
    sys.exit("usage: chunk-peer-table.py RESULT.json PEER.md")
peer={}
for line in open(sys.argv[2]):
    m=re.match(r'\| (\w+) \| chunk \| (\w+) \| ([\d,]+) \| ([^|]+) \| ([^|]*) \|',line)
    if m:
        op,mode,shape,fla,floor=m.groups()
        try: fla=float(fla)
        except: fla=None
        floor=float(floor) if floor.strip() else None
        peer[(op,mode,shape)]=(fla,floor)
d=json.load(open(sys.argv[1]))
res={}
for c in d['cases']:
    if c['status']!='ok': continue
    a=c['axes']; shape=f"{a['B']},{a['T']},{a['H']},{a['K']}"
    res.setdefault((c['op'],c['mode'],shape),{})[a['chunk_size']]=(c['timing']['median_ms'],c['derived']['floor_bytes'])
print("| op | mode | B,T,H,D | ours ms (best C) | C16 / C32 / C64 ms | FLA ms | floor ms | x floor | FLA / ours | target ms | met |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
met=0;n=0
for op in ['gla','rwkv6','simple_gla']:
  for shape in ['8,1024,8,64','4,4096,16,64','1,24576,16,64','2,16384,16,128','4,4096,16,128']:
    for mode in ['fwd','fwdbwd']:
        r=res[(op,mode,shape)]
        best=min(r,key=lambda k:r[k][0]); t=r[best][0]
        fla,floor=peer.get((op,mode,shape),(None,None))
        if floor is None: floor=r[best][1]/3.0e9
        k=2 if mode=='fwd' else 3
        target=max(k*floor,(fla/3 if fla else 0))
        ok=t<=target; met+=ok; n+=1
        cs=" / ".join(f"{r[c][0]:.3f}" if c in r else "-" for c in (16,32,64))
        print(f"| {op} | {mode} | {shape} | {t:.3f} (C{best}) | {cs} | {fla if fla else 'refused'} | {floor:.3f} | {t/floor:.1f} | {(f'{fla/t:.2f}' if fla else '-')} | {target:.3f} | {'yes' if ok else 'no'} |")
print(f"\ntargets met: {met} of {n}")
