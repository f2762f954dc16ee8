#!/bin/bash
# stop 81: fused_recurrent version 91 candidate: converter warps (version 72's, one ring slot) beside
# rwkv7's bf16 plain forward at two columns a lane (version 90's layout: one scanning warp a scheduler, issue
# slots 53% busy) behind FLA_AB_CONV=1. Checks and racecheck with it on, two A/B rounds, ncu, and issue 3's
# table with it on (kept only if it is faster).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s81d; mkdir -p $R
cp run-s81d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s81d.tar.xz s81d); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7.*bfloat16Li16' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
FLA_AB_CONV=1 timeout 60 ./fb check --filter 'rwkv7/fused_recurrent/.*/bf16/' --out $R/check-conv.json > $R/check-conv.log 2>&1; tail -n2 $R/check-conv.log
FLA_AB_CONV=1 timeout 90 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/fwdbwd/bf16/.*many_heads' --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwd/bf16/B(2-T16384|4-T4096-H16-K128)'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/base-$round.json > $R/base-$round.log 2>&1; grep B2-T16384 $R/base-$round.log
  FLA_AB_CONV=1 ./fb --filter "$F" $O --out $R/conv-$round.json > $R/conv-$round.log 2>&1; grep B2-T16384 $R/conv-$round.log
done
./fb compare --rounds $R/base-1.json $R/conv-1.json $R/base-2.json $R/conv-2.json > $R/ab.txt 2>&1; grep -E "^rwkv7" $R/ab.txt
pack; date
FLA_AB_CONV=1 timeout 100 ./fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --min-time 0.2 --min-samples 5 --out $R/issue3-fused-conv.json > $R/issue3-fused-conv.log 2>&1; tail -n1 $R/issue3-fused-conv.log
grep "rwkv7/fused_recurrent/fwd/bf16/B2-T16384" $R/issue3-fused-conv.log
pack; date
FLA_AB_CONV=1 timeout 100 ncu --set full --import-source yes -k regex:fused_recurrent_fwd --launch-count 1 -o /tmp/ncu-conv ./fb --filter "^rwkv7/fused_recurrent/fwd/bf16/B2-T16384-H16-K128" --preset peer --profile-once --no-check --out /tmp/j-conv.json > $R/ncu-conv.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/ncu-conv.ncu-rep --page details > $R/ncu-conv-details.txt 2>&1
ncu --import /tmp/ncu-conv.ncu-rep --page source --csv --print-source sass > $R/ncu-conv-source.csv 2>&1; gzip -9 $R/ncu-conv-source.csv
grep -E "Duration|Issue Slots Busy|Issued Instructions  |Registers Per" $R/ncu-conv-details.txt
pack; date
