#!/bin/bash
# Stop 117's third device call, prepared and not run (the session's device time ran out): is racecheck's
# report on version 114's landing build (h100/stop117/call2-v114/racecheck*.log: the prepared fused forward,
# in gla's T = 1100 fwd and fwd+bwd and rwkv6's T = 1100 fwd+bwd, the runs cut before the rest; its outputs'
# read-back of the staging tile at fused_roles.cuh:119 against the loads' cp.async into the same stage, only
# at T = 1100, the one case with stages reused) a race or racecheck's model? By reading, the stage is handed
# back (bar.arrive) after the read and the loads bar.sync on it before refilling; the state's reads of the
# cp.async'd decays, handed back the same way early in its step, are not flagged.
# To run: copy this folder's files to p/, move results/baselines aside, carry build-part-s117/v114 (the
# landing build, branch v114-fewer-wavefronts 76f1e0b), `bash p/device-script.sh`.
# Steps: (1) racecheck-probe.cu, the pattern on the kernels' own helpers with nothing racing, under
# racecheck: the outputs' read last (0) or after overwriting their rows (1), the stage filled by cp.async
# (0) or plain stores (1); (2) racecheck of the landing build on every many-chunk case (T = 1100) of gla,
# rwkv6 and simple_gla.
# Prediction (before the run): the probe flagged with cp.async and the read last (both 0 and 1), clean with
# plain stores: racecheck's model, and 114 lands as measured; a clean probe says the report may be real:
# then the prepared forward takes back 105's stores (its A/B gain was nil) before 114 lands.
set -u
source scripts/device-call.sh build-part-s117/v114 v114rc p/racecheck-probe.cu || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
${CUDA_HOME:-/usr/local/cuda}/bin/nvcc -arch=sm_90 -O3 -I. -o /tmp/probe p/racecheck-probe.cu > $R/probe-build.log 2>&1
echo "probe build rc $?"
for mode in "0 0" "1 0" "0 1" "1 1"; do
  timeout 30 compute-sanitizer --tool racecheck --print-limit 4 /tmp/probe $mode > "$R/probe-${mode/ /-}.log" 2>&1
  echo "probe $mode rc $?"; grep -E "^probe|SUMMARY|Race reported" "$R/probe-${mode/ /-}.log" | head -4
done; pack; date
S='^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T1100-.*C64'
for tool in racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; grep -c "Race reported" $R/$tool.log
  grep -B1 "Race reported" $R/$tool.log | grep -E "^[a-z]+/" | head; rm -f $R/$tool.json; pack
done; date
