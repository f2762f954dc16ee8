#!/bin/bash
# Stop 103's call for versions 84-86 of simple_gla's gradients kernel (branch v84-mid-prefetch, on
# v83-with-v7576), carrying build-part-s103/v86ab: the branch plus ab-build.diff beside this script, three
# switches in one binary: FLA_AB_NO_MID=1 takes version 84 away (no L2 prefetch of the states at K = V = 128, as
# 82-83), FLA_AB_WARP0_DG=1 takes 85 away (warp 0 writes dg, then the next chunk's decays), FLA_AB_NO_FOLD=1
# takes 86 away (S0 . dS in a pass of its own at K = V = 64). The battery as 86, 85 and 83 (bit for bit
# expected between 83 and 85; 86 sums dg's state term in another order at K = V = 64); then three A/Bs (2
# rounds): 84 against 83, 85 against 84, 86 against 85. Lands in $OUT/v86.tar.xz, packed after each step. The battery takes gla's,
# rwkv6's and simple_gla's bf16 chunk fwd and fwd+bwd at C = 64 too: switched back (both switches on), the
# binary is branch v83-with-v7576, whose errors should be bit for bit stop 102's main (ref-v82-check.json.xz,
# simple_gla's fwd+bwd; ref-v7576-check.json.xz, the forwards and gla's and rwkv6's fwd+bwd: v75 + 76 on v74,
# bit for bit v74 there, and 77-82 touched only simple_gla's backward).
set -u
name=v86ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s103/$name/lib $dir/
xz -T0 -dc build-part-s103/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v86; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/v86.tar.xz -C /tmp out-v86; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='(/simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/|/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/.*C64)'
here=$(dirname "$0")
timeout 100 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json
FLA_AB_NO_MID=1 FLA_AB_WARP0_DG=1 FLA_AB_NO_FOLD=1 timeout 100 $fb check --no-long --filter "$F" \
  --out $R/check-base.json > $R/check-base.log 2>&1; xz -T0 -f $R/check-base.json
FLA_AB_NO_FOLD=1 timeout 100 $fb check --no-long --filter "$F" --out $R/check-85.json > $R/check-85.log 2>&1
xz -T0 -f $R/check-85.json
python3 scripts/check-error-compare.py $R/check-base.json.xz $R/check-85.json.xz > $R/check-errors-85-83.txt 2>&1
python3 scripts/check-error-compare.py $R/check-85.json.xz $R/check.json.xz > $R/check-errors-86-85.txt 2>&1
for c in 85-83 86-85; do echo "$c:"; sed -n 3,5p $R/check-errors-$c.txt; done
python3 scripts/check-error-compare.py $here/ref-v82-check.json.xz $R/check-base.json.xz \
  --filter '/simple_gla/(chunk|fused_recurrent)/fwdbwd/' > $R/check-errors-83-v82.txt 2>&1
python3 scripts/check-error-compare.py $here/ref-v7576-check.json.xz $R/check-base.json.xz \
  --filter '/((gla|rwkv6)/chunk/|simple_gla/chunk/fwd/)' > $R/check-errors-83-v7576.txt 2>&1
for ref in v82 v7576; do echo "83 against $ref:"; sed -n 3p $R/check-errors-83-$ref.txt; done; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing (see check.log)"; exit 0; }
A='--preset peer --filter ^simple_gla/chunk/fwdbwd/bf16/ --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_NO_MID=1 FLA_AB_WARP0_DG=1 FLA_AB_NO_FOLD=1' NEW_ENV='FLA_AB_WARP0_DG=1 FLA_AB_NO_FOLD=1' timeout 150 bash scripts/ab-rounds.sh \
  $fb $fb $R/ab84 2 $A > $R/ab84-out.txt 2>&1; echo "ab84 rc $?"; tail -n 8 $R/ab84-out.txt; pack
BASE_ENV='FLA_AB_WARP0_DG=1 FLA_AB_NO_FOLD=1' NEW_ENV='FLA_AB_NO_FOLD=1' timeout 150 bash scripts/ab-rounds.sh \
  $fb $fb $R/ab85 2 $A > $R/ab85-out.txt 2>&1; echo "ab85 rc $?"; tail -n 8 $R/ab85-out.txt; pack
BASE_ENV='FLA_AB_NO_FOLD=1' timeout 150 bash scripts/ab-rounds.sh \
  $fb $fb $R/ab86 2 $A > $R/ab86-out.txt 2>&1; echo "ab86 rc $?"; tail -n 8 $R/ab86-out.txt; pack; date
