#!/bin/bash
# Prepared at stop 126, not run (loans paused after failed starts). To run: build main's 134 (b37a9c2 or later;
# ddb2cf9 was the measured bundle), 5b10d35 (v135-split-ready) and cd97204 (v136-tiles-spread) slim (90-real,
# -compress-mode=none, tests off), bundle them as build-part-s126/{v134,v135,v136} (bundle-for-device, then xz
# the binary); copy this folder's files into an untracked folder; move results/baselines aside; carry
# build-part-s126; `bash pN/call-v135-v136.sh`.
# Stop 126, call 5: versions 135 (branch v135-split-ready, 5b10d35: the score tiles announced to their readers
# only, where one barrier of all 384 threads held dq's warpgroup for A, which it does not read) and 136
# (v136-tiles-spread, cd97204, on 135: the tiles made in 32-column halves, M's by dq's and dk's warpgroups, A's
# both by dv's, where dq's made M and dk's A whole while dv's waited) against main's 134 (ddb2cf9's bundle;
# main's gradients kernel PTX-identical): 136's battery (base: 134's from call 1), A/Bs of both, racecheck and
# synccheck of 136, timelines at 1,24576,16,64.
# Predictions: 135 and 136 bit for bit 134's battery (the same arithmetic; 136's halves each the same sums of
# products); the gradients kernel at 1,24576,16,64: 135 0.95-0.98x of 134, 136 0.85-0.92x (dq's chain, M then
# its products, shortened by half a tile), fwd+bwd 0.97-0.99x and 0.92-0.96x.
set -u
source scripts/device-call.sh build-part-s126/v136 v135-v136 || exit 2
v136=$fb
v134=$(unpack_build build-part-s126/v134) || exit 2
v135=$(unpack_build build-part-s126/v135) || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $v134 --version; $v135 --version; $v136 --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
AB=(--filter '^simple_gla/chunk/fwdbwd/bf16' --axis C=64 --preset peer --min-time 0.1 --min-samples 5 --no-check)
battery check-v136-sg "$SG" "$(dirname "$0")/check-v134-sg.json.xz" 60
for v in v136; do
  timeout 90 scripts/ab-rounds.sh $v134 "${!v}" $R/ab-v134-vs-$v 2 "${AB[@]}" > $R/ab-$v.log 2>&1
  echo "ab $v rc $?"; grep -A7 "^case" $R/ab-$v.log; xz -T0 -f $R/ab-*/*.json; pack
done
S='^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64'
for tool in racecheck synccheck; do  # (memcheck left out: the device time left)
  timeout 35 compute-sanitizer --tool $tool --print-limit 10 "$fb" check --no-isolate --no-long --filter "$S" \
    --out "$R/sanitized.json" > "$R/runs-v136-$tool.log" 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" "$R/runs-v136-$tool.log" | head -3; rm -f "$R/sanitized.json"
done
pack
for v in v135; do
  timeout 90 scripts/ab-rounds.sh $v134 "${!v}" $R/ab-v134-vs-$v 2 "${AB[@]}" > $R/ab-$v.log 2>&1
  echo "ab $v rc $?"; grep -A7 "^case" $R/ab-$v.log; xz -T0 -f $R/ab-*/*.json; pack
done
for n in v134-1 v136-1 v134-2 v136-2; do
  v=${n%-*}
  timeout 30 "${!v}" profile --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' --preset peer --axis C=64 \
    --min-time 0.1 --no-check --out $R/profile-$n.json > $R/profile-$n.log 2>&1
  xz -T0 -f $R/profile-$n.json
  python3 scripts/timeline.py $R/profile-$n.json.xz > $R/timeline-$n.txt 2>&1
  grep -E "grads_wgmma|launches" $R/timeline-$n.txt
done
pack; date
