#!/bin/bash
# stop 75: fused_recurrent version 88 candidate: the whole-span loop (version 73's, two tokens a trip with the
# next token's loads ahead and no branch between them) at 16 keys a lane too, behind FLA_EXP_SPAN16=1: the
# plain forward of every form in bf16 (rwkv7's fp16 too) and rwkv7's room forward. Checks with it on, A/B
# rounds, registers, profile, memcheck.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s75c; mkdir -p $R
cp run-s75c.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s75c.tar.xz s75c); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Li16E' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
FLA_EXP_SPAN16=1 timeout 200 ./fb check --filter '/fused_recurrent/' --out $R/check-span16.json > $R/check-span16.log 2>&1; tail -n2 $R/check-span16.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^((rwkv7|gla|rwkv6|simple_gla)/fused_recurrent/fwd/bf16/.*K128|rwkv7/fused_recurrent/(fwd|fwdbwd)/(bf16|fp16)/.*K128)'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  FLA_EXP_SPAN16=1 ./fb --filter "$F" $O --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
tail -n 22 $R/ab.txt
FLA_EXP_SPAN16=1 ./fb profile --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "fused_recurrent_fwd_kernel\|^rwkv7" $R/profile.log
pack; date
FLA_EXP_SPAN16=1 timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/(fwd|fwdbwd)/(bf16|fp16)/.*K128' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
pack; date
