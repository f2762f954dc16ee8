#!/bin/bash
# stop 89: fused_recurrent version 94 (A/B build): rwkv7's saving forward makes intra's per-chunk matrices on
# a side stream beside its scan where FLA_AB_INTRA_SIDE=1 (the chunked backward then skips them); 58b's idea
# again on today's forward (one 8-warp block an SM at 160 registers, so one intra block beside it).
# Battery with it on (bit for bit against stop 88's run of stop 87's build expected), two A/B rounds of the
# fused fwd+bwd (bf16, fp16) at the peer and few-heads shapes, per-launch profiles both ways, memcheck on.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s89a; mkdir -p $R; cp run-s89a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s89a.tar.xz s89a); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
FLA_AB_INTRA_SIDE=1 timeout 60 ./fb check --filter 'rwkv7/fused_recurrent/fwdbwd/' --out $R/check-rwkv7-fused-fwdbwd-side.json > $R/check-rwkv7-fused-fwdbwd-side.log 2>&1; echo "check rc $?"; tail -n2 $R/check-rwkv7-fused-fwdbwd-side.log
python3 ../scripts/check-error-compare.py ref-fwdbwd.json $R/check-rwkv7-fused-fwdbwd-side.json > $R/check-errors-vs-stop88.txt 2>&1; head -n 4 $R/check-errors-vs-stop88.txt
pack; date
BASE_ENV=FLA_AB_INTRA_SIDE=0 NEW_ENV=FLA_AB_INTRA_SIDE=1 timeout 170 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab 2 \
  --filter '^rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/' --preset peer --min-time 0.2 --min-samples 5 --no-check | tail -n 20
pack; date
BASE_ENV=FLA_AB_INTRA_SIDE=0 NEW_ENV=FLA_AB_INTRA_SIDE=1 timeout 80 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab-few-heads 2 \
  --filter '^rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/' --axis B=1 --axis T=8192,24576 --axis H=16 --axis D=64 --min-time 0.2 --min-samples 5 --no-check | tail -n 8
pack; date
for side in 0 1; do
  FLA_AB_INTRA_SIDE=$side timeout 50 ./fb profile --filter "^rwkv7/fused_recurrent/fwdbwd/bf16/" --preset peer --out $R/profile-side$side.json > $R/profile-side$side.log 2>&1; echo "profile side$side rc $?"
  python3 ../scripts/timeline.py $R/profile-side$side.json > $R/timeline-side$side.txt 2>&1
done
pack; date
FLA_AB_INTRA_SIDE=1 timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb --no-isolate --filter '^rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/' --axis B=1,4 --axis T=1000,8192 --axis H=4 --axis D=64 --min-time 0.001 --min-samples 1 --warmup 0 --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
