#!/bin/bash
# Stop 106's second call: the loads' make modes of the state and output kernel, after the first call found
# version 95 (the loads make the queries and keys) slower in the forward at K = 128 (gla 4,4096,16,128
# 1.06x, 2,16384,16,128 1.35x: the loads' making, latency-bound in one warp a scheduler, repeated in each of
# a head's value slices). Carrying build-part-s106/v97ab: branch v96-ab at a80587e (v96-queries-for-backward
# plus ab-build-make-modes.diff beside this script). FLA_AB_MAKE: 0 none (94's rows from the operands pass),
# 1 queries and keys (95), 2 that unrolled by two tokens, 3 the keys alone (the queries the pass's), 4 that
# unrolled; FLA_AB_V96_ON_94=1 with mode 0: 96 on 94 (the pass writes the queries' both parts before a
# backward, which then skips its prepare). Steps: the forward battery at C = 64 in modes 2, 3, 4 against mode
# 0's and the fwd+bwd one of 96 on 94 against 94's (bit for bit expected); A/Bs of the forward at the K = 64
# and K = 128 peer shapes, mode 0 against 4, 3 and 2 (2 rounds each); the fwd+bwd A/B of 96 on 94 against 94;
# per-kernel times of gla's K = 128 forwards in modes 3 and 4. Lands in $OUT/modes.tar.xz.
set -u
source scripts/device-call.sh build-part-s106/v97ab modes "$(dirname "$0")/ab-build-make-modes.diff" || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/(gla|rwkv6)/chunk/fwd/bf16/.*C64'
for m in 0 2 3 4; do
  FLA_AB_MAKE=$m timeout 40 $fb check --no-long --filter "$F" --out $R/check-$m.json > $R/check-$m.log 2>&1
  echo "check mode $m rc $?"; grep -E "cases:" $R/check-$m.log | tail -1; xz -T0 -f $R/check-$m.json
done
for m in 2 3 4; do
  python3 scripts/check-error-compare.py $R/check-0.json.xz $R/check-$m.json.xz > $R/check-errors-$m-0.txt 2>&1
  sed -n 3p $R/check-errors-$m-0.txt
done
G='/(gla|rwkv6)/chunk/fwdbwd/bf16/.*C64'
FLA_AB_MAKE=0 timeout 40 $fb check --no-long --filter "$G" --out $R/check-bwd-94.json > $R/check-bwd-94.log 2>&1
echo "check fwdbwd 94 rc $?"; grep -E "cases:" $R/check-bwd-94.log | tail -1; xz -T0 -f $R/check-bwd-94.json
FLA_AB_MAKE=0 FLA_AB_V96_ON_94=1 timeout 40 $fb check --no-long --filter "$G" --out $R/check-bwd-96on94.json \
  > $R/check-bwd-96on94.log 2>&1
echo "check fwdbwd 96 on 94 rc $?"; grep -E "cases:" $R/check-bwd-96on94.log | tail -1; xz -T0 -f $R/check-bwd-96on94.json
python3 scripts/check-error-compare.py $R/check-bwd-94.json.xz $R/check-bwd-96on94.json.xz > $R/check-errors-96on94.txt 2>&1
sed -n 3p $R/check-errors-96on94.txt; pack
A='--preset peer --filter ^(gla|rwkv6)/chunk/fwd/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
for m in 4 3 2; do
  BASE_ENV='FLA_AB_MAKE=0' NEW_ENV="FLA_AB_MAKE=$m" timeout 75 bash scripts/ab-rounds.sh $fb $fb $R/ab-$m-0 2 $A \
    > $R/ab-$m-0-out.txt 2>&1
  echo "ab mode $m against 0 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab-$m-0-out.txt; pack; date
done
B='--preset peer --filter ^(gla|rwkv6)/chunk/fwdbwd/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_MAKE=0' NEW_ENV='FLA_AB_MAKE=0 FLA_AB_V96_ON_94=1' timeout 90 bash scripts/ab-rounds.sh $fb $fb \
  $R/ab-96on94 2 $B > $R/ab-96on94-out.txt 2>&1
echo "ab 96 on 94 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab-96on94-out.txt; pack; date
for m in 3 4; do
  FLA_AB_MAKE=$m timeout 40 $fb profile --filter '^gla/chunk/fwd/bf16/B[24]-T(4096|16384)-H16-K128' --preset peer \
    --axis C=64 --out $R/profile-$m.json > $R/profile-$m.log 2>&1; echo "profile mode $m rc $?"
  grep -E "chunk_operands|prepared_fused" $R/profile-$m.log; xz -T0 -f $R/profile-$m.json 2>/dev/null; pack
done; date
