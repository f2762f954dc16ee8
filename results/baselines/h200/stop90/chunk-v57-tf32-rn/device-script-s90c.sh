#!/bin/bash
# stop 90, call c (carries build-part-b: chunk version 57's build, cvt.rn for TF32 on sm_90; build-part-a from
# call b still on the machine): the fp32 battery of the chunk-form kernels on B against A's errors, two A/B
# rounds of the fp32 chunk and fused fwd+bwd at the peer shapes (bf16 gla chunk as the control: unchanged
# kernels), one profile each way of gsa's and gla's fp32 fused fwd+bwd.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; A=../build-part-a
export LD_LIBRARY_PATH=$PWD/../build-part-a/lib
R=$OUT/s90c; mkdir -p $R; cp run-s90c.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $A/fb ] || { echo "call b's build-part-a/fb is gone: a fresh machine"; exit 3; }
date
timeout 240 ./fb check --filter '/(chunk|fused_recurrent)/.*/fp32/' --out $R/check-fp32-B.json > $R/check-fp32-B.log 2>&1; echo "check B rc $?"; tail -n2 $R/check-fp32-B.log
python3 ../scripts/check-error-compare.py $A/ref-fp32-A.json.xz $R/check-fp32-B.json > $R/check-errors-A-vs-B.txt 2>&1; head -n 30 $R/check-errors-A-vs-B.txt
xz -T2 $R/check-fp32-B.json
date
timeout 330 bash ../scripts/ab-rounds.sh $A/fb ./fb $R/ab 2 \
  --filter '^(gla|rwkv6|simple_gla|gsa|rwkv7)/(chunk/(fwd|fwdbwd)|fused_recurrent/fwdbwd)/fp32/|^gla/chunk/fwdbwd/bf16/' \
  --preset peer --min-time 0.1 --min-samples 5 --no-check | tail -n 100
date
for side in A B; do bin=./fb; [ $side = A ] && bin=$A/fb
  timeout 60 $bin profile --filter '^(gsa|gla)/fused_recurrent/fwdbwd/fp32/' --axis B=8 --axis T=1024 --axis H=8 --axis D=64 --out $R/profile-$side.json > $R/profile-$side.log 2>&1; echo "profile $side rc $?"
done
date
