#!/bin/bash
# Stop 124, call B (any H100 or H200; the three builds on one machine): version 126 (simple_gla's gradients
# kernel: its score tiles by decayed_scores' per-warp forms; each chunk's gates and run factor loaded a chunk
# ahead) and branch v125 (gla's and rwkv6's bf16 backward at few heads with the reverse scan in runs), each
# against main (version 124).
# Predictions: v126 bit for bit main's battery (the same arithmetic; the score tiles' rows past the sequence
# zeros from zero inputs where they were masked), simple_gla's chunk fwd+bwd 0.85-0.92x where the gradients
# kernel runs (1,24576,16,64: -40 to -110 us of its 454), "same" elsewhere; fused_recurrent's fwd+bwd there
# likewise. v125: gla's and rwkv6's chunk fwd+bwd at 1,24576,16,64 0.95-0.96x, other cases "same", battery
# ok, bit for bit but the few-heads fwd+bwd shapes.
set -u
source scripts/device-call.sh build-part-s124/v126 v126-v125 || exit 2
base=/tmp/fb-main v125=/tmp/fb-v125
xz -dc build-part-s124/main/fla-bench.xz > $base && chmod +x $base || echo "no main bundle"
xz -dc build-part-s124/v125/fla-bench.xz > $v125 && chmod +x $v125 || echo "no v125 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version; $v125 --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
GR='/(gla|rwkv6)/(chunk|fused_recurrent)/fwdbwd/bf16/'
fbx=$fb; fb=$base
battery check-main-sg "$SG" "" 80
battery check-main-gr "$GR" "" 100
fb=$fbx; battery check-v126-sg "$SG" $R/check-main-sg.json.xz 80
fb=$v125; battery check-v125-gr "$GR" $R/check-main-gr.json.xz 100
fb=$fbx; date
timeout 120 scripts/ab-rounds.sh $base $fb $R/ab-main-vs-v126 3 --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16' \
  --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab-v126.log 2>&1
echo "ab v126 rc $?"; grep -A13 "^case" $R/ab-v126.log; pack
timeout 60 scripts/ab-rounds.sh $base $fb $R/ab-main-vs-v126-fused 2 --filter '^simple_gla/fused_recurrent/fwdbwd/bf16' \
  --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab-v126-fused.log 2>&1
echo "ab v126 fused rc $?"; grep -A7 "^case" $R/ab-v126-fused.log; pack
timeout 110 scripts/ab-rounds.sh $base $v125 $R/ab-main-vs-v125 2 --filter '^(gla|rwkv6)/chunk/fwdbwd/bf16' \
  --axis C=64 --preset peer --min-time 0.15 --min-samples 5 --no-check > $R/ab-v125.log 2>&1
echo "ab v125 rc $?"; grep -A12 "^case" $R/ab-v125.log
xz -T0 -f $R/ab-*/*.json; pack; date
timeout 40 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' --preset peer --axis C=64 --min-time 0.1 \
  --no-check --out $R/profile-v126.json > $R/profile-v126.log 2>&1
echo "profile rc $?"; xz -T0 -f $R/profile-v126.json
python3 scripts/timeline.py $R/profile-v126.json.xz > $R/timeline-v126.txt 2>&1; grep -E "us |launches" $R/timeline-v126.txt | head -12
timeout 40 $v125 profile --filter '^(gla|rwkv6)/chunk/fwdbwd/bf16/(B1-T24576|B4-T4096-H16-K64)' --preset peer --axis C=64 \
  --min-time 0.1 --no-check --out $R/profile-v125.json > $R/profile-v125.log 2>&1
echo "profile v125 rc $?"; xz -T0 -f $R/profile-v125.json
python3 scripts/timeline.py $R/profile-v125.json.xz > $R/timeline-v125.txt 2>&1; grep -E "launches|key_grads|scan" $R/timeline-v125.txt | head -20
pack; date
one_shape=(--axis B=1 --axis T=24576 --axis H=16 --axis K=64 --axis V=64 --axis C=64)
ncu_kernel grads-v126 scalar_grads_wgmma_kernel 120 --filter '^simple_gla/chunk/fwdbwd/bf16/' "${one_shape[@]}"
date
