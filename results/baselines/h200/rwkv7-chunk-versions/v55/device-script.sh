#!/bin/bash
# stop 75: rwkv7 chunk v55 candidate: the reverse scan stores dS^T's two bf16 parts by stmatrix's transposing
# form (store_parts_transposed) instead of two 2-byte stores a value, behind FLA_EXP_STMATRIX=1. The rwkv7
# bf16 battery both ways (to compare every reading), sanitizers, A/B rounds, profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s75f; mkdir -p $R
cp run-s75f.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s75f.tar.xz s75f); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'dstates_mma_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
C='rwkv7/(chunk|fused_recurrent)/.*/bf16/'
timeout 100 ./fb check --filter "$C" --out $R/check-old.json > $R/check-old.log 2>&1; tail -n2 $R/check-old.log
FLA_EXP_STMATRIX=1 timeout 100 ./fb check --filter "$C" --out $R/check-new.json > $R/check-new.log 2>&1; tail -n2 $R/check-new.log
pack; date
FLA_EXP_STMATRIX=1 timeout 60 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/bf16/.*(K128|K64)' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
FLA_EXP_STMATRIX=1 timeout 90 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/chunk/fwdbwd/bf16/.*K128' --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  FLA_EXP_STMATRIX=1 ./fb --filter "$F" $O --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
tail -n 18 $R/ab.txt
FLA_EXP_STMATRIX=1 ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "dstates\|^rwkv7" $R/profile.log
pack; date
