#!/bin/bash
# version 69 final: battery, issue-3 table, memcheck and racecheck of rwkv7's converter forward
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v69final; mkdir -p $R
date
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
date
./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $R/table.json > $R/table.log 2>&1; tail -n2 $R/table.log
date
timeout 150 compute-sanitizer --tool memcheck ./fb --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/(bf16|fp32)' --axis B=1 --axis T=1,100,4100 --axis H=2 --axis D=32,64 --profile-once --no-check --out /tmp/j.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY" $R/memcheck.log | sort | uniq -c
date
timeout 100 compute-sanitizer --tool racecheck ./fb --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16' --axis B=1 --axis T=100 --axis H=2 --axis D=32,64 --profile-once --no-check --out /tmp/j2.json > $R/racecheck.log 2>&1; echo "racecheck rc $?"; grep -E "HAZARD|RACECHECK SUMMARY" $R/racecheck.log | sort | uniq -c | head
date
cd $OUT && tar -cJf v69final.tar.xz v69final && rm -rf v69final
