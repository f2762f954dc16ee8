#!/bin/bash
# Stop 116's fourth device call, prepared and not run (the session's device time ran out): why version 114's
# landing form (branch v114-fewer-wavefronts 3cc2ad5) made simple_gla's fwd+bwd slower in call 3's table
# (4,4096,16,64 0.421 ms against the record's 0.378; 2,16384,16,128 2.127 against 2.024) while its forward
# is faster (0.078 against 0.086). Call 3's A/B could not say: its FLA_AB_OLD setter was one inline function
# for two translation units, so only the prepared fused forward's (gla, rwkv6) took the switch and simple_gla
# ran 114 against itself. A/B build v114c (branch v114-ab, ab-build-v114c.diff from 3cc2ad5): FLA_AB_OLD a
# mask of 105's data moves, 1 the outputs' 4-byte stores, 2 S's 4-byte publishing (3 both: 105's moves),
# set per translation unit; bundled into build-part-s116/v114c (ignored). To run: copy this folder's two
# files to p/, move results/baselines aside, carry build-part-s116, `bash p/device-script.sh`.
# Steps: A/B 114 against OLD=3 on simple_gla's fwd and fwd+bwd (2 rounds); per-kernel profiles of the
# fwd+bwd at the peer shapes both ways; A/B of each move alone on the fwd+bwd (OLD=1 and OLD=2 against none).
# Prediction (before the run): call 3's table holds, so 114 against 105's moves the forward 0.87-0.94x and
# the fwd+bwd 1.03-1.11x at Vs = 32, the profile placing the loss in dq's and dk's passes (the ones with
# dots); a fwd+bwd "same" or faster says call 3's table rows were that machine's, not the code's.
set -u
source scripts/device-call.sh build-part-s116/v114c v114c p/ab-build-v114c.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_OLD=3' NEW_ENV='FLA_AB_NONE=1' timeout 80 bash scripts/ab-rounds.sh $fb $fb $R/ab-114-old3 2 \
  $A --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' > $R/ab-114-old3-out.txt 2>&1
echo "ab 114 against OLD=3 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-114-old3-out.txt; pack; date
for v in 114 old3; do
  if [ $v = old3 ]; then export FLA_AB_OLD=3; else unset FLA_AB_OLD; fi
  timeout 45 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16' --preset peer --axis C=64 --min-time 0.1 \
    --out $R/profile-$v.json > $R/profile-$v.log 2>&1; echo "profile $v rc $?"
  grep -E "^simple_gla|%" $R/profile-$v.log | head -30; xz -T0 -f $R/profile-$v.json; pack
done; unset FLA_AB_OLD; date
for m in 1 2; do
  BASE_ENV="FLA_AB_OLD=$m" NEW_ENV='FLA_AB_NONE=1' timeout 40 bash scripts/ab-rounds.sh $fb $fb $R/ab-114-old$m 1 \
    $A --filter '^simple_gla/chunk/fwdbwd/bf16/' > $R/ab-114-old$m-out.txt 2>&1
  echo "ab 114 against OLD=$m rc $?"; grep -E "^simple_gla" $R/ab-114-old$m-out.txt; pack
done; date
