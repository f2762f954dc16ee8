#!/bin/bash
# Stop 105's last call: gla's and rwkv6's bf16 forward alone at K = 64, C = 64 on Hopper through the prepared
# path (the operands pass, 92's, and the state and output kernel) in place of version 72's one kernel, never
# timed alone before; carrying build-part-s105/k64ab: main plus ab-build-k64.diff beside this script (the
# prepared path by default; FLA_AB_PER_KEY=1 version 72's, main's choice). The battery over gla's and rwkv6's
# bf16 C = 64 cases as the build takes them (the forward-only K = 64 cases on the prepared path), then the A/B
# at the K = 64 peer shapes (2 rounds). Lands in $OUT/k64.tar.xz, packed after each step.
set -u
name=k64ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s105/$name/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s105/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-k64; mkdir -p $R; cp "$0" $R/device-script.sh; cp "$(dirname "$0")/ab-build-k64.diff" $R/
pack() { tar -cJf $OUT/k64.tar.xz -C /tmp out-k64; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/(gla|rwkv6)/chunk/fwd/bf16/.*C64'
timeout 40 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing"; grep -iE "fail" $R/check.log | head; exit 0; }
A='--preset peer --filter ^(gla|rwkv6)/chunk/fwd/bf16/B[148]-T(1024|4096|24576)-H(8|16)-K64 --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_PER_KEY=1' timeout 100 bash scripts/ab-rounds.sh $fb $fb $R/ab 2 $A > $R/ab-out.txt 2>&1
echo "ab rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab-out.txt; pack; date
