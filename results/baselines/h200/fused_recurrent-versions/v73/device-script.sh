#!/bin/bash
# fused_recurrent version 73 (second build: the whole-span loop chosen by the caller, scan_whole_span; the first build's length test was miscompiled)
# between them (scan_chunk_tokens' kFull); one binary, FLA_AB_OLD=1 the loop as before
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v73; mkdir -p $R
cp ../build-part/run-v73.sh $R/device-script.sh 2>/dev/null
cuobjdump --dump-resource-usage fb 2>&1 | grep -A1 fused_recurrent_fwd_kernel | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | awk '{print $2, $3, $4, $5}' | c++filt | sed 's/flabench:://g; s/fused:://g; s/(Pointers.*)//' > $R/resources.txt 2>&1
date
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep -q ' 0 failed' $R/check.log || { grep FAIL $R/check.log | head; cd $OUT && tar -cJf v73.tar.xz v73; exit 1; }
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^(rwkv7|gla|rwkv6|simple_gla|gsa)/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same" $R/ab/rounds.txt | head -70
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab-16-32 1 --filter '^(rwkv7|gla|rwkv6|simple_gla|gsa)/fused_recurrent/(fwd|fwdbwd)/(fp16|fp32)' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab-16-32.out 2>&1
grep -i "faster\|slower\|same" $R/ab-16-32/rounds.txt | head -70
date
cd $OUT && tar -cJf v73.tar.xz v73 && rm -rf v73
