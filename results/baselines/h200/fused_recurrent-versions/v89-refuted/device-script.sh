#!/bin/bash
# stop 80: fused_recurrent version 89 candidate: rwkv7's plain forward at 16 keys a lane with a^T S's key-group
# sum started a token ahead (low_rank_ahead.cuh) behind FLA_AB_AHEAD=1. Checks with it on, A/B rounds, ncu.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s80a; mkdir -p $R
cp run-s80a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s80a.tar.xz s80a); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
FLA_AB_AHEAD=1 timeout 150 ./fb check --filter 'rwkv7/fused_recurrent/' --out $R/check-ahead.json > $R/check-ahead.log 2>&1; tail -n2 $R/check-ahead.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwd/(bf16|fp16|fp32)/B(2-T16384|4-T4096-H16-K128)'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  FLA_AB_AHEAD=1 ./fb --filter "$F" $O --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
cat $R/ab.txt | tail -n 12
pack; date
FLA_AB_AHEAD=1 timeout 120 ncu --set full --import-source yes -k regex:fused_recurrent_fwd --launch-count 1 -o /tmp/ncu-fwd ./fb --filter "^rwkv7/fused_recurrent/fwd/bf16/B2-T16384-H16-K128" --preset peer --profile-once --no-check --out /tmp/j-fwd.json > $R/ncu-fwd.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/ncu-fwd.ncu-rep --page details > $R/ncu-fwd-details.txt 2>&1
ncu --import /tmp/ncu-fwd.ncu-rep --page source --csv --print-source sass > $R/ncu-fwd-source.csv 2>&1; gzip -9 $R/ncu-fwd-source.csv
grep -E "Duration|Issue Slots Busy|Executed Ipc A|Registers Per" $R/ncu-fwd-details.txt
pack; date
