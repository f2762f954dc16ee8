#!/bin/bash
# stop 80: the committed rwkv7 forward with its column records padded by FLA_AB_PAD floats (AB-TEMP), pads
# 0..64, two rounds: does the record's stride move the 16-key bf16 forward (stop 80's v89 base read 4.92 ms
# at 2,16384,16,128 with records 4 floats longer, against 4.73 in every earlier run)?
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s80b; mkdir -p $R
cp run-s80b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s80b.tar.xz s80b); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
FLA_AB_PAD=4 timeout 60 ./fb check --filter 'rwkv7/fused_recurrent/fwd/bf16' --out $R/check-pad4.json > $R/check-pad4.log 2>&1; tail -n1 $R/check-pad4.log
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwd/(bf16|fp16)/B(2-T16384|4-T4096-H16-K128)'
for round in 1 2; do
  for pad in 0 4 8 12 16 20 24 32 64; do
    FLA_AB_PAD=$pad ./fb --filter "$F" $O --out $R/pad$pad-$round.json > $R/pad$pad-$round.log 2>&1
    echo "round $round pad $pad: $(grep '^rwkv7' $R/pad$pad-$round.log | awk '{printf "%s %s  ", $1, $2}')"
  done
  pack
done
