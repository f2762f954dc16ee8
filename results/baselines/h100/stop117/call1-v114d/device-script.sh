#!/bin/bash
# Stop 117's first device call: why version 114 (branch v114-fewer-wavefronts 3cc2ad5) made simple_gla's
# fwd+bwd slower in stop 116's table (4,4096,16,64 0.421 ms against the record's 0.378) while its forward is
# faster (0.078 against 0.086), and whether keeping 105's moves in the backward passes alone keeps the forward's
# gain without the loss. A/B build v114d (branch v114-ab, ab-build-v114d.diff from 3cc2ad5): FLA_AB_OLD a mask
# of 105's data moves taken back; in simple_gla's fused passes 1 the outputs' 4-byte stores and 2 S's 4-byte
# publishing in the forward, 4 and 8 the same in the backward's passes (dq, dk, dv, the state gradients); 15
# is 105's moves throughout, 12 the candidate (114's moves in the forward only). Bundle build-part-s117/v114d.
# Prediction (before the run): 0 against 15 as stop 116's table: the forward 0.87-0.94x, the fwd+bwd
# 1.03-1.11x at Vs = 32, the profile placing the loss in dq's and dk's passes; 12 against 15 the forward as
# 0's and the fwd+bwd 0.97-0.99x (the forward's gain, a fifth of the fwd+bwd). A fwd+bwd "same" for 0 says
# the table's rows were that machine's, not the code's.
set -u
source scripts/device-call.sh build-part-s117/v114d v114d p/ab-build-v114d.diff || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; date
A='--preset peer --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
F='^simple_gla/chunk/(fwd|fwdbwd)/bf16/'
for n in 0 12; do
  BASE_ENV='FLA_AB_OLD=15' NEW_ENV="FLA_AB_OLD=$n" timeout 80 bash scripts/ab-rounds.sh $fb $fb $R/ab-$n-vs-15 2 \
    $A --filter "$F" > $R/ab-$n-vs-15-out.txt 2>&1
  echo "ab $n against 15 rc $?"; grep -E "^simple_gla|cases over|geomean" $R/ab-$n-vs-15-out.txt; pack; date
done
for m in 0 15; do
  FLA_AB_OLD=$m timeout 45 $fb profile --filter '^simple_gla/chunk/fwdbwd/bf16' --preset peer --axis C=64 \
    --min-time 0.1 --out $R/profile-$m.json > $R/profile-$m.log 2>&1; echo "profile $m rc $?"
  grep -E "^simple_gla|%" $R/profile-$m.log | head -30; xz -T0 -f $R/profile-$m.json; pack
done; date
for n in 11 7; do
  BASE_ENV='FLA_AB_OLD=15' NEW_ENV="FLA_AB_OLD=$n" timeout 40 bash scripts/ab-rounds.sh $fb $fb $R/ab-$n-vs-15 1 \
    $A --filter '^simple_gla/chunk/fwdbwd/bf16/' > $R/ab-$n-vs-15-out.txt 2>&1
  echo "ab $n against 15 rc $?"; grep -E "^simple_gla" $R/ab-$n-vs-15-out.txt; pack
done; date
