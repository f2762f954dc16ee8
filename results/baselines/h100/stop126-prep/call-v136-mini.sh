#!/bin/bash
# Prepared at stop 126, not run (loans paused after failed starts). To run: build main's 134 (b37a9c2 or later;
# ddb2cf9 was the measured bundle), 5b10d35 (v135-split-ready) and cd97204 (v136-tiles-spread) slim (90-real,
# -compress-mode=none, tests off), bundle them as build-part-s126/{v134,v136} (bundle-for-device, then xz
# the binary); copy this folder's files into an untracked folder; move results/baselines aside; carry
# build-part-s126; `bash pN/call-v136-mini.sh`.
# Stop 126, call 5 (what the session's last device time allows, ~130 s): version 136 (branch v136-tiles-spread,
# cd97204, on 135) against main's 134: its battery (base: 134's from call 1), one A/B round at 1,24576,16,64,
# racecheck of one few-heads case. The fuller call is call-v135-v136.sh beside this one.
set -u
source scripts/device-call.sh build-part-s126/v136 v136-mini || exit 2
v134=$(unpack_build build-part-s126/v134) || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
battery check-v136-sg '/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/' "$(dirname "$0")/check-v134-sg.json.xz" 50
timeout 40 scripts/ab-rounds.sh $v134 $fb $R/ab-v134-vs-v136 1 --filter '^simple_gla/chunk/fwdbwd/bf16/B1-T24576' \
  --axis C=64 --preset peer --min-time 0.1 --min-samples 5 --no-check > $R/ab-v136.log 2>&1
echo "ab rc $?"; grep -A3 "^case" $R/ab-v136.log; pack
timeout 25 compute-sanitizer --tool racecheck --print-limit 10 "$fb" check --no-isolate --no-long \
  --filter '^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/B1-T4100-H16-K64.*C64' --out $R/sanitized.json \
  > $R/runs-v136-racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/runs-v136-racecheck.log | head -3; rm -f $R/sanitized.json
pack; date
