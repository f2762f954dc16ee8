#!/bin/bash
# stop 88: gsa version 62 (A/B build): the scores A [C][C] unpadded in gsa chunk's logits and logit-gradient
# blocks, so fp32's logit gradients at chunks of 32, M = K = V = 64 fit four blocks an SM (55.75 KiB) and take
# the 64-register instance. FLA_AB_SCORES_PAD=1 restores the padded A (and with it three blocks in fp32).
# Two A/B rounds of gsa's fwd+bwd (fused_recurrent all dtypes, chunk bf16/fp32) and chunk bf16 fwd at the peer
# shapes; per-launch profiles at 8,1024,8,64 and 4,4096,16,64 fp32 both ways; the gsa battery (bit for bit
# against stop 86's v61-final expected) and memcheck of fp32 cases.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s88b; mkdir -p $R; cp run-s88b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s88b.tar.xz s88b); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 60 ./fb check --filter 'gsa/(fused_recurrent|chunk)/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check gsa rc $?"; tail -n2 $R/check-gsa.log
python3 ../scripts/check-error-compare.py ref-gsa.json $R/check-gsa.json > $R/check-errors-vs-v61.txt 2>&1; head -n 4 $R/check-errors-vs-v61.txt
pack; date
BASE_ENV=FLA_AB_SCORES_PAD=1 NEW_ENV=FLA_AB_SCORES_PAD=0 timeout 300 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab 2 \
  --filter '^gsa/(fused_recurrent/fwdbwd/|chunk/fwdbwd/(bf16|fp32)/|chunk/fwd/bf16/)' --preset peer --min-time 0.2 --min-samples 5 --no-check | tail -n 36
pack; date
for pad in 1 0; do
  FLA_AB_SCORES_PAD=$pad timeout 40 ./fb profile --filter "^gsa/fused_recurrent/fwdbwd/fp32/B(8-T1024|4-T4096)-H(8|16)-K64-V64" --preset peer --out $R/profile-pad$pad.json > $R/profile-pad$pad.log 2>&1; echo "profile pad$pad rc $?"
  python3 ../scripts/timeline.py $R/profile-pad$pad.json > $R/timeline-pad$pad.txt 2>&1; grep logit_grads $R/timeline-pad$pad.txt
done
pack; date
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'gsa/(fused_recurrent|chunk)/fwdbwd/fp32/(.*many_heads|B2-T65-H2-K64-V64-M128/shared_memory_99KiB)' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
