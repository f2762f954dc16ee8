# Stall reasons summed over a SASS line range of an ncu source page: python3 stall-reasons.py SOURCE.csv.gz FROM,TO
import csv,gzip,sys
rows=list(csv.reader(gzip.open(sys.argv[1],'rt')))
hdr=rows[1]; data=[r for r in rows[2:] if len(r)==len(hdr)]
half=len(data)//2
if data[0][1]==data[half][1]: data=data[:half]
si=hdr.index("Warp Stall Sampling (All Samples)")
stall=[(j,h) for j,h in enumerate(hdr) if h.startswith('stall_') and 'Not Issued' not in h]
def n(x):
    try: return int(x)
    except: return 0
a,b=[int(x) for x in sys.argv[2].split(',')]
seg=data[a:b]
tot={h:sum(n(r[j]) for r in seg) for j,h in stall}
T=sum(tot.values())
for h,v in sorted(tot.items(),key=lambda x:-x[1])[:10]: print(f"{h:25s} {v:6d} {100*v/T:5.1f}%")
