#!/bin/bash
# Stop 104's first call for chunk versions 87-88 (gla's and rwkv6's bf16 forward at C = 64 from prepared
# operands: kernels/common/chunk/prepared_fused_forward.cu; 88: one operands pass in place of 87's three
# launches), carrying build-part-s104/v88ab: branch v88-one-operands-pass plus ab-build-v88.diff beside this
# script, two switches: FLA_AB_NO_PREPARED=1 takes 87 and 88 away (main's forwards), FLA_AB_THREE_PASSES=1
# takes 88 away (87). The battery over gla's and rwkv6's bf16 chunk fwd and fwd+bwd (every C) with 88, and at
# C = 64 without (errors compared); the A/B against main's forwards at the peer shapes (C = 64, 2 rounds);
# the per-kernel profile at K = 128. Lands in $OUT/v88a.tar.xz, packed after each step.
set -u
name=v88ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s104/$name/lib $dir/
xz -T0 -dc build-part-s104/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v88a; mkdir -p $R; cp "$0" $R/device-script.sh; cp "$(dirname "$0")/ab-build-v88.diff" $R/
pack() { tar -cJf $OUT/v88a.tar.xz -C /tmp out-v88a; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/'
timeout 170 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json; pack
FLA_AB_NO_PREPARED=1 timeout 100 $fb check --no-long --filter "$F.*C64" --out $R/check-base.json \
  > $R/check-base.log 2>&1; echo "check-base rc $?"; grep -E "cases:" $R/check-base.log | tail -1
xz -T0 -f $R/check-base.json
python3 scripts/check-error-compare.py $R/check-base.json.xz $R/check.json.xz > $R/check-errors-88-base.txt 2>&1
sed -n 1,12p $R/check-errors-88-base.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing (see check.log)"; grep -E "FAIL|fail" $R/check.log | head -20; exit 0; }
A='--preset peer --filter ^(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/ --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_NO_PREPARED=1' timeout 200 bash scripts/ab-rounds.sh $fb $fb $R/ab88 2 $A > $R/ab88-out.txt 2>&1
echo "ab88 rc $?"; tail -n 24 $R/ab88-out.txt; pack; date
timeout 90 $fb --filter '^(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[24]-T(4096|16384)-H16-K128' --preset peer \
  --axis C=64 --min-time 0.1 --min-samples 5 --out $R/profile.json profile > $R/profile.log 2>&1
echo "profile rc $?"; grep -E "^(gla|rwkv6)|%.*(chunk|prepared)" $R/profile.log | head -60; xz -T0 -f $R/profile.json; pack
date
