#!/bin/bash
# Stop 111's review call: main as committed after the review (one gate loader for the scalar and fused
# kernels). The bf16 chunk battery of gla, rwkv6 and simple_gla (with simple_gla's fused_recurrent): it
# covers the scalar kernels' new gate loads, the fused kernel, and gla's and rwkv6's state and output kernel,
# which shares the loads ring version 105 unrolled; racecheck of that kernel's forward cases. Lands in
# $OUT/review.tar.xz.
set -u
source scripts/device-call.sh build-part-s111/review review || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/((gla|rwkv6|simple_gla)/chunk|simple_gla/fused_recurrent)/(fwd|fwdbwd)/bf16/'
timeout 80 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
echo "check rc $?"; grep -E "cases:" $R/check.log | tail -1; grep -E "FAIL|failed" $R/check.log | head -20
xz -T0 -f $R/check.json; pack
S='^[a-z]+/(gla|rwkv6)/chunk/fwd/bf16/.*H(16|48).*C64'
timeout 60 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/racecheck.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck.log | head -3; rm -f $R/racecheck.json; pack; date
