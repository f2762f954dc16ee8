#!/bin/bash
# stop 81: fused_recurrent version 90 candidate: rwkv7's plain forward at two columns a lane in 4-warp blocks
# (version 76's layout, FLA_AB_CPL2=1) with and without version 89's a^T S started a token ahead
# (FLA_AB_AHEAD=1): at one warp a scheduler the 16-key loop is latency-bound, where v89's halved chain
# should pay. Checks with both on, four-way A/B rounds, registers.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s81a; mkdir -p $R
cp run-s81a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s81a.tar.xz s81a); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
FLA_AB_CPL2=1 FLA_AB_AHEAD=1 timeout 120 ./fb check --filter 'rwkv7/fused_recurrent/fwd' --out $R/check-both.json > $R/check-both.log 2>&1; tail -n2 $R/check-both.log
FLA_AB_CPL2=1 timeout 60 ./fb check --filter 'rwkv7/fused_recurrent/fwd/.*/many_heads' --out $R/check-cpl2.json > $R/check-cpl2.log 2>&1; tail -n2 $R/check-cpl2.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwd/(bf16|fp16|fp32)/B(2-T16384|4-T4096-H16-K128)'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/base-$round.json > $R/base-$round.log 2>&1; tail -n1 $R/base-$round.log
  FLA_AB_CPL2=1 ./fb --filter "$F" $O --out $R/cpl2-$round.json > $R/cpl2-$round.log 2>&1; tail -n1 $R/cpl2-$round.log
  FLA_AB_AHEAD=1 ./fb --filter "$F" $O --out $R/ahead-$round.json > $R/ahead-$round.log 2>&1; tail -n1 $R/ahead-$round.log
  FLA_AB_CPL2=1 FLA_AB_AHEAD=1 ./fb --filter "$F" $O --out $R/both-$round.json > $R/both-$round.log 2>&1; tail -n1 $R/both-$round.log
  pack; date
done
for x in cpl2 ahead both; do
  ./fb compare --rounds $R/base-1.json $R/$x-1.json $R/base-2.json $R/$x-2.json > $R/ab-$x.txt 2>&1
  echo "== $x"; grep -E "^rwkv7" $R/ab-$x.txt
done
./fb compare --rounds $R/cpl2-1.json $R/both-1.json $R/cpl2-2.json $R/both-2.json > $R/ab-both-vs-cpl2.txt 2>&1
grep -h "B2-T16384" $R/*-1.log $R/*-2.log | grep bf16
pack; date
FLA_AB_CPL2=1 FLA_AB_AHEAD=1 timeout 120 ncu --set full --import-source yes -k regex:fused_recurrent_fwd --launch-count 1 -o /tmp/ncu-both ./fb --filter "^rwkv7/fused_recurrent/fwd/bf16/B2-T16384-H16-K128" --preset peer --profile-once --no-check --out /tmp/j-both.json > $R/ncu-both.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/ncu-both.ncu-rep --page details > $R/ncu-both-details.txt 2>&1
ncu --import /tmp/ncu-both.ncu-rep --page source --csv --print-source sass > $R/ncu-both-source.csv 2>&1; gzip -9 $R/ncu-both-source.csv
grep -E "Duration|Issue Slots Busy|Executed Ipc A|Registers Per" $R/ncu-both-details.txt
pack; date
