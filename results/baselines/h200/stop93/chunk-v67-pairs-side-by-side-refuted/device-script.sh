#!/bin/bash
# stop 93, call h-b (carries build-part-h: chunk version 67, simple_gla's forward alone in pairs of chunks side by side,
# 2 W warps a block), with build-part-g/fb (the committed
# kernels) from call h-a still on the machine: memcheck and racecheck of the pair kernel at small shapes,
# scripts/candidate.sh (the battery of gla's and simple_gla's chunk and fused variants against version 60's
# readings, then two A/B rounds: simple_gla's bf16 chunk forward at C = 32 and 64, its fwd+bwd and gla's
# forward at C = 64 as controls), then the per-kernel profile of simple_gla's forward.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-g
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s93h; mkdir -p $R; cp run-s93h-b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call h-a's build-part-g/fb is gone: a fresh machine"; exit 3; }
date
small=(--filter '^simple_gla/chunk/fwd/bf16/' --axis B=1 --axis T=1,65,130,200 --axis H=2 --axis D=64,128
       --axis C=16,32,64 --profile-once --no-check)
timeout 90 compute-sanitizer --tool memcheck ./fb "${small[@]}" --out /tmp/m.json > $R/memcheck.log 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY" $R/memcheck.log | sort | uniq -c
timeout 90 compute-sanitizer --tool racecheck ./fb "${small[@]}" --out /tmp/r.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "HAZARD|RACECHECK SUMMARY" $R/racecheck.log | sort | uniq -c | head
date
timeout 330 bash ../scripts/candidate.sh $B/fb ./fb $R 2 '/(gla|simple_gla)/(chunk|fused_recurrent)/' \
  check-v60.json.xz --filter '^simple_gla/chunk/fwd/bf16/|^simple_gla/chunk/fwdbwd/bf16/.*/C64|^gla/chunk/fwd/bf16/.*/C64' \
  --axis C=32,64 --preset peer --min-time 0.1 --min-samples 5 --no-check; echo "candidate rc $?"
grep -E "cases:|failed" $R/check-new.log | tail -3
date
timeout 60 ./fb --filter '^simple_gla/chunk/fwd/bf16/' --preset peer --axis C=32,64 --min-time 0.1 --min-samples 5 \
  --out $R/profile.json profile > $R/profile.log 2>&1; echo "profile rc $?"; grep -E "^simple|scan|output" $R/profile.log
(cd /tmp && tar -cJf $OUT/s93h.tar.xz s93h); date
