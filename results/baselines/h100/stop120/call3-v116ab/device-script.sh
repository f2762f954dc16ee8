#!/bin/bash
# Stop 120's third call: which of version 116's parts made simple_gla's fwd+bwd at 4,4096,16,128 slower (call
# 2: 1.08-1.12x of 115, the rest 0.96-0.99), and whether the gate scan can end with dv's pass. A/B build
# v116-ab (ac39787; `ab-build-v116-ab.diff` from a0cf93a), switches on the host only, each choosing among
# compile-time instances (no run-time switch in a kernel): FLA_AB_ROWS 0 the dots' rows staged where they fit
# (116), 1 at 32 values a block only, 2 never (115); FLA_AB_ORDER=1 115's launches (dq's on the call's
# stream, equal priorities); FLA_AB_SCAN=1 the gate scan in 40 registers (fewer steps a batch), so that its
# block fits beside one of dv's at K = 64, 32 values a block (88 registers x 512 threads + 40 x 512 = 64 Ki).
# Each configuration against main's 115 bundle (0c0cdf1), 2 rounds, C = 64, the fwd+bwd at the four fused
# shapes. Prediction (before any run): A (116) as call 2; B (rows at 32 values only) "same" at
# 4,4096,16,128 and as A elsewhere if the second panel at 64 values is the loss; C (115's order) as A at
# 4,4096,16,128 if the staging is; D (116 + the scan beside) 8,1024,8,64 0.90-0.93 (the scan ends with dv's
# pass); F (115 in this build) "same" everywhere (the build's own bias: none expected).
# To run: copy this folder's files to p3/ with h100/stop119/call1-land118/check.json.xz, move
# results/baselines aside, carry build-part-s120/v116ab and build-part-s120/main115, `bash p3/device-script.sh`.
set -u
source scripts/device-call.sh build-part-s120/v116ab v116ab p3/ab-build-v116-ab.diff || exit 2
base=/tmp/fb-main115
xz -dc build-part-s120/main115/fla-bench.xz > $base && chmod +x $base || echo "no main115 bundle"
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; $base --version; date
F='^simple_gla/chunk/fwdbwd/bf16/(B8-T1024-H8-K64|B4-T4096-H16-K64|B2-T16384-H16-K128|B4-T4096-H16-K128)'
ab() {  # NAME ENV
  NEW_ENV="$2" timeout 70 scripts/ab-rounds.sh $base $fb $R/ab-$1 2 --filter "$F" --axis C=64 --preset peer \
    --min-time 0.15 --min-samples 5 --no-check > $R/ab-$1.log 2>&1
  echo "ab $1 ($2) rc $?"; grep -E "^simple_gla" $R/ab-$1/rounds.txt; xz -T0 -f $R/ab-$1/*.json; pack
}
ab A "FLA_AB_ROWS=0 FLA_AB_ORDER=0 FLA_AB_SCAN=0"
ab B "FLA_AB_ROWS=1 FLA_AB_ORDER=0 FLA_AB_SCAN=0"
ab C "FLA_AB_ROWS=0 FLA_AB_ORDER=1 FLA_AB_SCAN=0"
ab D "FLA_AB_ROWS=0 FLA_AB_ORDER=0 FLA_AB_SCAN=1"
ab E "FLA_AB_ROWS=1 FLA_AB_ORDER=0 FLA_AB_SCAN=1"
ab F "FLA_AB_ROWS=2 FLA_AB_ORDER=1 FLA_AB_SCAN=0"
date
for c in "A 0 0 0" "B 1 0 0" "C 0 1 0" "D 0 0 1"; do
  set -- $c
  FLA_AB_ROWS=$2 FLA_AB_ORDER=$3 FLA_AB_SCAN=$4 timeout 40 $fb profile \
    --filter '^simple_gla/chunk/fwdbwd/bf16/(B8-T1024|B4-T4096-H16-K128)' --preset peer --axis C=64 \
    --min-time 0.1 --no-check --out $R/profile-$1.json > $R/profile-$1.log 2>&1
  echo "profile $1 rc $?"; xz -T0 -f $R/profile-$1.json
  python3 scripts/timeline.py $R/profile-$1.json.xz > $R/timeline-$1.txt 2>&1
  grep -E "launches|kernel<|grads" $R/timeline-$1.txt | head -14; pack
done; date
for c in "D 0 0 1" "E 1 0 1"; do
  set -- $c
  FLA_AB_ROWS=$2 FLA_AB_ORDER=$3 FLA_AB_SCAN=$4 timeout 60 $fb check --no-long \
    --filter '/simple_gla/chunk/(fwd|fwdbwd)/bf16/' --out $R/check-$1.json > $R/check-$1.log 2>&1
  echo "check $1 rc $?"; grep -E "cases:" $R/check-$1.log | tail -1; xz -T0 -f $R/check-$1.json
  python3 scripts/check-error-compare.py p3/check.json.xz $R/check-$1.json.xz > $R/check-$1-errors-vs-115.txt 2>&1
  head -4 $R/check-$1-errors-vs-115.txt | tail -2; pack
done; date
