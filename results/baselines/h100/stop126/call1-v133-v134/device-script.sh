#!/bin/bash
# Stop 126, call 1: versions 133 (branch v133-tma-staging at 9456490, on main: each chunk's q, k, v and do
# copied by TMA from one thread, a box a 64-column panel, completing on a stage mbarrier, where every thread
# issued cp.async copies with their address work on the path to the chunk's first barrier) and 134 (branch
# v134-tma-on-132 at ddb2cf9: 133 on 132, i.e. 131's S0 . dS by dv's warpgroup in its wait for the score
# tiles and 132's next chunk's decays by dv's first warp after its outputs) against main's 127 (8873d82):
# batteries, A/Bs, sanitizers. Bundles: build-part-s125/{v127,v133,v134}; 127's battery base from stop 124
# call C. Predictions: batteries at 127's error levels (133 bit for bit: the same inputs staged; 134 dg's
# state term from four partials); simple_gla chunk fwd+bwd at 1,24576,16,64: 133 0.94-0.97x, 134 0.88-0.94x
# of 127; the other peer shapes "same" or faster.
set -u
source scripts/device-call.sh build-part-s125/v134 v133-v134 || exit 2
v127=/tmp/fb-v127 v133=/tmp/fb-v133 v134=$fb
xz -dc build-part-s125/v127/fla-bench.xz > $v127 && chmod +x $v127 || echo "no v127 bundle"
xz -dc build-part-s125/v133/fla-bench.xz > $v133 && chmod +x $v133 || echo "no v133 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $v127 --version; $v133 --version; $v134 --version; date
SG='/simple_gla/(chunk|fused_recurrent)/(fwd|fwdbwd)/bf16/'
BASE="$(dirname "$0")/check-v127-sg.json.xz"
AB=(--filter '^simple_gla/chunk/fwdbwd/bf16' --axis C=64 --preset peer --min-time 0.1 --min-samples 5 --no-check)
fb=$v133; battery check-v133-sg "$SG" "$BASE" 60
fb=$v134; battery check-v134-sg "$SG" "$BASE" 60
for v in v133 v134; do
  timeout 90 scripts/ab-rounds.sh $v127 "${!v}" $R/ab-v127-vs-$v 2 "${AB[@]}" > $R/ab-$v.log 2>&1
  echo "ab $v rc $?"; grep -A7 "^case" $R/ab-$v.log; xz -T0 -f $R/ab-*/*.json; pack
done
S='^[a-z_]+/simple_gla/chunk/fwdbwd/bf16/(B1-T1100-H2-K128|B1-T4100-H16-K64).*C64'
fb=$v134; sanitizers runs-v134 "$S" 35
date
