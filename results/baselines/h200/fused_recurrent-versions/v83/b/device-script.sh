#!/bin/bash
# stop 73, call 4: fused_recurrent version 83b: the room's rows without the wrap of version 83a's bank shift
# (which overlapped K = 256's rows) and sent by the block's threads in 16-byte stores after the chunk's
# barrier instead of 83a's bulk copies a row; FLA_AB_BURSTS=1 keeps version 82's bursts. Checks of the
# fused battery against stop 70's (bit-for-bit expected), then two A/B rounds.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s73d; mkdir -p $R
cp run-s73d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s73d.tar.xz s73d); }
date
timeout 150 ./fb check --filter '/fused_recurrent/' --out $R/check-fused.json > $R/check-fused.log 2>&1; tail -n2 $R/check-fused.log
grep "FAIL" $R/check-fused.log | head -5
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^(rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/|(gla|rwkv6|simple_gla)/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128))'
for round in 1 2; do
  FLA_AB_BURSTS=1 ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  ./fb --filter "$F" $O --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
tail -n 25 $R/ab.txt
pack; date
