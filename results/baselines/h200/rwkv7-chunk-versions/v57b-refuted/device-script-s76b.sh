#!/bin/bash
# stop 76: rwkv7 chunk v57b and v58 (fixed) candidates in one binary. v57 (s76a): the channel kernel's pair
# gradients as bf16 planes (FLA_AB_CHANNEL_FP32_PAIRS=1: as committed). v57b: its B operands (k e^r, b e^r,
# q e^l, a e^le) as bf16 planes too, the step pair's factor applied to each step's product after it
# (FLA_AB_CHANNEL_FACTOR_IN_B=1: v57). v58: the reverse scan's dV_new in six chains, now with every sum's
# index a constant (FLA_AB_DVN_ONE_CHAIN=1: as committed). Configurations: A as committed, D v57b, E v57b
# and v58. Batteries (bf16, fp16; fp32 once), sanitizers of E, A/B rounds, profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s76b; mkdir -p $R
cp run-s76b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s76b.tar.xz s76b); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'channel_grads_kernel\|dstates_mma_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*' | paste - - - - > $R/registers.txt 2>&1
date
A="env FLA_AB_CHANNEL_FP32_PAIRS=1 FLA_AB_DVN_ONE_CHAIN=1"; D="env FLA_AB_DVN_ONE_CHAIN=1"; E="env"
K='rwkv7/(chunk|fused_recurrent)/.*/(bf16|fp16)/'
for x in A D E; do
  timeout 120 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log
done
timeout 120 ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/.*/fp32/' --out $R/check-fp32.json > $R/check-fp32.log 2>&1; tail -n2 $R/check-fp32.log
pack; date
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)/.*(K128|K64)' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
timeout 100 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/chunk/fwdbwd/bf16/.*K128' --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A D E; do
    ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; tail -n1 $R/$x-$round.log
  done
  pack; date
done
./fb compare --rounds $R/A-1.json $R/D-1.json $R/A-2.json $R/D-2.json > $R/ab-v57b.txt 2>&1
./fb compare --rounds $R/D-1.json $R/E-1.json $R/D-2.json $R/E-2.json > $R/ab-v58.txt 2>&1
./fb compare --rounds $R/A-1.json $R/E-1.json $R/A-2.json $R/E-2.json > $R/ab-both.txt 2>&1
tail -n 16 $R/ab-v57b.txt; tail -n 16 $R/ab-v58.txt; tail -n 16 $R/ab-both.txt
E2="env"
${!E2} ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile-E.json > $R/profile-E.log 2>&1
grep -h "dstates\|channel\|^rwkv7" $R/profile-E.log
pack; date
