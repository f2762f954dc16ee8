#!/bin/bash
# stop 71, gsa version 52: pass 2 of the fwd+bwd's forward saves Hv transposed (16-byte stores a lane) and the
# backward transposes them back. The fused battery (every op: the saving forward's store has a branch now),
# memcheck of gsa's fused cases over segments, two A/B rounds of gsa's fused fwd+bwd on the peer shapes in
# every dtype (FLA_AB_COLUMNS: the column stores as before), the other ops' bf16 fused fwd+bwd peer times,
# gla's fused fwd+bwd in every dtype (issue 10's denominators), a profile of gsa's bf16 fwd+bwd at 1,24576
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop71-gsa52; mkdir -p $R
cp run-s71f.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --filter '/fused_recurrent/' --out $R/check-fused.json > $R/check-fused.log 2>&1; tail -n2 $R/check-fused.log
grep FAIL $R/check-fused.log | head
date
compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/fused_recurrent/.*segments' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n2 $R/memcheck.log
date
F='^gsa/fused_recurrent/fwdbwd/'
for round in 1 2; do
  FLA_AB_COLUMNS=1 ./fb --filter "$F" --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/columns-$round.json > $R/columns-$round.log 2>&1; tail -n1 $R/columns-$round.log
  ./fb --filter "$F" --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/transposed-$round.json > $R/transposed-$round.log 2>&1; tail -n1 $R/transposed-$round.log
  date
done
./fb --filter '^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/fwdbwd/bf16/|^gla/fused_recurrent/fwdbwd/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/others-fwdbwd.json > $R/others-fwdbwd.log 2>&1; tail -n1 $R/others-fwdbwd.log
./fb profile --filter '^gsa/fused_recurrent/fwdbwd/bf16/B1-T24576' --preset peer --out $R/profile-gsa.json > $R/profile-gsa.log 2>&1; tail -n1 $R/profile-gsa.log
date
cd $OUT && tar -cJf stop71-gsa52.tar.xz stop71-gsa52 && rm -rf stop71-gsa52
