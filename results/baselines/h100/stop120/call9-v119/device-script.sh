#!/bin/bash
# Stop 120's ninth call: chunk version 119 (branch v119-copy-pieces fb516c4, landing build, no switch) against
# main's 118 (10b90cc), both slim builds, one machine. 119: the loads' copies of v and of the dots' rows take
# the state's making's piece order (warpgroup_piece), so that their shared-memory writes at 32 values a block
# are free of the two-way bank conflicts call 5's ncu showed on them (every v copy's LDGSTS 2x its ideal
# wavefronts). Prediction (before any run; kernels/notes/chunk.md, version 119): bit for bit 118; A/B (2
# rounds, C = 64) "same" everywhere, 0.99-1.00 at the 32-value shapes (the copies are asynchronous: their
# conflicts cost the shared-memory port, not a chain); racecheck and synccheck clean.
# To run: copy this folder's files to p9/ with h100/stop119/call1-land118/check.json.xz and
# ../shared/anchors/peer-fla-h100.md, move results/baselines aside, carry build-part-s120/v119 and
# build-part-s120/main118, `bash p9/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s120/v119 v119 || exit 2
base=/tmp/fb-main118
xz -dc build-part-s120/main118/fla-bench.xz > $base && chmod +x $base || echo "no main118 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version; date
timeout 40 $fb check --no-long --filter '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py p9/check.json.xz $R/check.json.xz > $R/check-errors-vs-115.txt 2>&1
head -4 $R/check-errors-vs-115.txt; pack; date
S='^simple_gla/chunk/(fwd|fwdbwd)/bf16'
timeout 80 scripts/ab-rounds.sh $base $fb $R/ab-main118-vs-v119 2 --filter "$S" --axis C=64 --preset peer \
  --min-time 0.15 --min-samples 5 --no-check > $R/ab.log 2>&1; echo "ab rc $?"; tail -15 $R/ab.log
xz -T0 -f $R/ab-main118-vs-v119/*.json; pack; date
for tool in racecheck synccheck; do
  timeout 40 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long \
    --filter '^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64' --out $R/s.json > $R/$tool-simple_gla.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool-simple_gla.log | head -3; rm -f $R/s.json; pack
done; date
