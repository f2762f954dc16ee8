import re,sys,collections
def funcs(path):
    out={}; cur=None
    for line in open(path):
        m=re.search(r'Function : (\S+)',line)
        if m: cur=m.group(1); out[cur]=[]; continue
        m=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);',line)
        if cur and m: out[cur].append((int(m.group(1),16),m.group(2).strip()))
    return out
for v in sys.argv[1:]:
    f=funcs(f'{v}.sass')
    for name,ins in f.items():
        tag='rwkv7' if 'Rwkv7' in name else 'gla'
        addr={a:i for i,(a,_) in enumerate(ins)}
        loops=[]
        for i,(a,t) in enumerate(ins):
            m=re.search(r'BRA (?:`\(\.L_x_\d+\)|)?.*?0x([0-9a-f]+)',t)
            if 'BRA' in t:
                m=re.search(r'0x([0-9a-f]+)',t.split('BRA',1)[1])
                if m:
                    tgt=int(m.group(1),16)
                    if tgt<=a and tgt in addr:
                        body=ins[addr[tgt]:i+1]
                        ops=collections.Counter(x[1].split()[0].lstrip('@!P0123456789T ').split('.')[0] if not x[1].startswith('@') else x[1].split()[1].split('.')[0] for x in body)
                        loops.append((len(body),tgt,a,ops))
        loops.sort(key=lambda x:-x[0])
        print(v,tag,'total',len(ins))
        for n,tgt,a,ops in loops[:6]:
            print('   loop',hex(tgt),hex(a),n, 'FFMA',ops.get('FFMA',0),'LDS',ops.get('LDS',0),'SHFL',ops.get('SHFL',0),'LDGSTS',ops.get('LDGSTS',0),'STS',ops.get('STS',0),'MUFU',ops.get('MUFU',0),'BAR',ops.get('BAR',0))
