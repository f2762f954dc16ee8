#!/bin/bash
# Stop 120's eighth call: racecheck and synccheck of chunk version 118 (1cb3083) on simple_gla's T = 1100 cases
# (call 7's racecheck step matched no check: its filter lacked the checks' leading group). No prediction
# beyond clean, as every landed version.
# To run: move results/baselines aside, carry build-part-s120/v118, `bash p8/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s120/v118 v118san || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
for tool in racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long \
    --filter '^[a-z]+/simple_gla/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64' --out $R/s.json > $R/$tool-simple_gla.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool-simple_gla.log | head -3; rm -f $R/s.json; pack
done; date
