#!/bin/bash
# fused_recurrent version 74 (version 73 with its whole-span loop unrolled to four tokens a trip): the fused battery against version 73's,
# the issue-3 table, gsa and gla fused at the peer shapes (issue 10's ratios)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/final; mkdir -p $R; cp run-v74.sh $R/device-script.sh
cuobjdump --dump-resource-usage fb 2>&1 | grep -A1 fused_recurrent_fwd_kernel | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | awk '{print $2, $3, $4, $5}' | c++filt | sed 's/flabench:://g; s/fused:://g; s/(Pointers.*)//' > $R/resources.txt 2>&1
date
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out $R/check.json > $R/check.log 2>&1; tail -n1 $R/check.log
grep -q ' 0 failed' $R/check.log || { grep FAIL $R/check.log | head; cd $OUT && tar -cJf final.tar.xz final; exit 1; }
python3 ../scripts/check-error-compare.py check-v73-final.json $R/check.json > $R/check-errors-vs-v73.txt 2>&1; head -4 $R/check-errors-vs-v73.txt
date
date
timeout 230 ./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $R/table.json > $R/table.log 2>&1; tail -n1 $R/table.log
date
timeout 120 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n1 $R/gsa-gla-peer.log
date
cd $OUT && tar -cJf final.tar.xz final && rm -rf final
