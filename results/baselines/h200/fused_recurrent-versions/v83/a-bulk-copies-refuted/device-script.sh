#!/bin/bash
# stop 73, call 3: fused_recurrent version 83, the saving forward's checkpoints and rwkv7's a^T S through
# shared memory and bulk copies (checkpoint_room.cuh) where launch_forward takes them; FLA_AB_BURSTS=1 keeps
# version 82's bursts (temporary switch). The stored values are the same, so every check reading should be
# bit-for-bit stop 70's; then memcheck, two A/B rounds and the profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s73c; mkdir -p $R
cp run-s73c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s73c.tar.xz s73c); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7' | grep -o 'Function [^:]*:\|REG:[0-9]*\|SHARED:[0-9]*\|STACK:[0-9]*' | paste - - - - > $R/registers.txt 2>&1
date
timeout 170 ./fb check --filter '/fused_recurrent/' --out $R/check-fused.json > $R/check-fused.log 2>&1; tail -n2 $R/check-fused.log
grep -i "fail" $R/check-fused.log | head -5
pack; date
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/.*K128' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^(rwkv7/fused_recurrent/(fwd/bf16|fwdbwd)/|(gla|rwkv6|simple_gla)/fused_recurrent/fwdbwd/bf16/)'
for round in 1 2; do
  FLA_AB_BURSTS=1 ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  ./fb --filter "$F" $O --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
tail -n 45 $R/ab.txt
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "fused_recurrent_fwd_kernel\|^rwkv7" $R/profile.log
pack; date
