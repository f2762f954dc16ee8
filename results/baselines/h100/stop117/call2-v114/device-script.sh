#!/bin/bash
# Stop 117's second device call: chunk version 114's landing build (branch v114-fewer-wavefronts 76f1e0b, no
# A/B switch: bundle build-part-s117/v114). Why: stop 117's first call found 114's moves against 105's, in
# one A/B build, fwd+bwd "same" or faster (0.93-0.98), while both of that build's modes ran the fwd+bwd at
# 4,4096,16,64 in 0.416-0.426 ms against 105's 0.378-0.381 on main (stop 111, two machines); stop 116's
# table of 114 (0.421) was also an A/B build's. So the builds' run-time switches, not 114's moves, cost the
# backward (their profiles at K = 128 show spills). Prediction (before the run): the table's simple_gla
# fwd+bwd at or under 105's record (4,4096,16,64 <= 0.38, 8,1024,8,64 <= 0.117, 2,16384,16,128 <= 2.03) and
# its forward as the A/B's gain (4,4096,16,64 ~0.078, 2,16384,16,128 ~0.40); gla and rwkv6 as 105 or faster;
# the battery bit for bit 105's; racecheck and synccheck clean.
set -u
source scripts/device-call.sh build-part-s117/v114 v114 || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 130 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json
python3 scripts/chunk-peer-table.py $R/issue4-chunk.json.xz p/peer-fla-h100.md > $R/issue4-chunk-peer-table.md 2>&1
grep -E "simple_gla|met:" $R/issue4-chunk-peer-table.md; pack; date
timeout 60 $fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/' --out $R/check-114.json \
  > $R/check-114.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check-114.log | tail -1; xz -T0 -f $R/check-114.json
python3 scripts/check-error-compare.py p/check-105.json.xz $R/check-114.json.xz > $R/check-errors-114-vs-105.txt 2>&1
head -6 $R/check-errors-114-vs-105.txt; pack; date
S='^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in racecheck synccheck; do
  timeout 75 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
