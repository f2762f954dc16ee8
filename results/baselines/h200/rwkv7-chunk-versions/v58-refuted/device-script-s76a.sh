#!/bin/bash
# stop 76: rwkv7 chunk v57 and v58 candidates in one binary. v57: the channel kernel's pair gradients for
# 16-bit inputs as two-part bf16 planes made once a block and read by ldmatrix (FLA_AB_CHANNEL_FP32_PAIRS=1:
# the fp32 pair gradients and element-by-element fragments, as committed). v58: the reverse scan's dV_new
# sums in six chains instead of two (FLA_AB_DVN_ONE_CHAIN=1: as committed). Configurations: A both old, B
# v57 only, C both new. Batteries of each (every reading compared), sanitizers of C, A/B rounds, profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s76a; mkdir -p $R
cp run-s76a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s76a.tar.xz s76a); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'channel_grads_kernel\|dstates_mma_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*' | paste - - - - > $R/registers.txt 2>&1
date
A="env FLA_AB_CHANNEL_FP32_PAIRS=1 FLA_AB_DVN_ONE_CHAIN=1"; B="env FLA_AB_DVN_ONE_CHAIN=1"; C="env"
K='rwkv7/(chunk|fused_recurrent)/.*/(bf16|fp16)/'
for x in A B C; do
  timeout 120 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log
done
pack; date
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)/.*(K128|K64)' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
timeout 120 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/chunk/fwdbwd/(bf16|fp16)/.*K128' --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A B C; do
    ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; tail -n1 $R/$x-$round.log
  done
  pack; date
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab-v57.txt 2>&1
./fb compare --rounds $R/B-1.json $R/C-1.json $R/B-2.json $R/C-2.json > $R/ab-v58.txt 2>&1
./fb compare --rounds $R/A-1.json $R/C-1.json $R/A-2.json $R/C-2.json > $R/ab-both.txt 2>&1
tail -n 16 $R/ab-v57.txt; tail -n 16 $R/ab-v58.txt; tail -n 4 $R/ab-both.txt
for x in A C; do
  ${!x} ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile-$x.json > $R/profile-$x.log 2>&1
  grep -h "dstates\|channel\|^rwkv7" $R/profile-$x.log
done
pack; date
