import csv,gzip,sys
rows=list(csv.reader(gzip.open(sys.argv[1],'rt')))
hdr=rows[1]; data=[r for r in rows[2:] if len(r)==len(hdr)]
half=len(data)//2
if data[0][1]==data[half][1]: data=data[:half]
si=hdr.index("Warp Stall Sampling (All Samples)"); ii=hdr.index("Instructions Executed")
stall=[(j,h) for j,h in enumerate(hdr) if h.startswith('stall_') and 'Not Issued' not in h]
def n(x):
    try: return int(x)
    except: return 0
bounds=[int(x) for x in sys.argv[2].split(',')]
names=sys.argv[3].split(',')
for (a,b),name in zip(zip(bounds,bounds[1:]),names):
    seg=data[a:b]; tot=sum(n(r[si]) for r in seg); ins=sum(n(r[ii]) for r in seg)
    print(f"== {name} [{a},{b}) samples {tot} instructions {ins}")
    if tot == 0: continue  # (a range no sample fell in: nothing to list)
    for i in sorted(range(a,b),key=lambda i:-n(data[i][si]))[:8]:
        r=data[i]; reasons=sorted([(n(r[j]),h[6:]) for j,h in stall],reverse=True)[:2]
        print(f"   {i:5d} {100*n(r[si])/tot:5.1f}% {r[1].strip()[:58]:58s} {reasons}")
