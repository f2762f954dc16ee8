#!/bin/bash
# stop 74: fused_recurrent version 85 (the room's sends in 16-byte pieces with their loads together) against
# version 84's sends behind FLA_AB_V84=1 in one binary: the fused battery, memcheck and racecheck of the room,
# two A/B rounds, the profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s74c; mkdir -p $R
cp run-s74c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s74c.tar.xz s74c); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7.*Li16' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
timeout 150 ./fb check --filter '/fused_recurrent/' --out $R/check-fused.json > $R/check-fused.log 2>&1; tail -n2 $R/check-fused.log
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/.*K128' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
timeout 90 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/.*K128' --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/(fwd/bf16|fwdbwd/(bf16|fp16))/'
for round in 1 2; do
  FLA_AB_V84=1 ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  ./fb --filter "$F" $O --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
tail -n 20 $R/ab.txt
./fb profile --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "fused_recurrent_fwd_kernel\|^rwkv7" $R/profile.log
pack; date
