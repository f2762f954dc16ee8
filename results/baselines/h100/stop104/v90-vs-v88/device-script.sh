#!/bin/bash
# Stop 104's third call: chunk versions 89 (the prepared forward's outputs release the state once q S is done
# and read A a chunk ahead) and 90 (the operands pass 64 key channels at a time), carrying
# build-part-s104/v90ab: branch v88-one-operands-pass at 8ac4de7 plus ab-build-v90.diff beside this script, three switches:
# FLA_AB_NO_PREPARED=1 main's forwards, FLA_AB_V88_OUTPUTS=1 takes 89 away, FLA_AB_TILE32=1 takes 90 away.
# The battery over gla's and rwkv6's bf16 chunk fwd and fwd+bwd (every C); at C = 64 as 89 (errors against
# 90's); A/Bs at the peer shapes the prepared forward takes (C = 64, 2 rounds): 89 + 90 against 88
# (90 against 89 left out: the device time left); then issue 4's table (bf16 chunk fwd and fwd+bwd of gla, rwkv6 and simple_gla, C = 16, 32, 64,
# the peer shapes) with no switch set (the branch's code but for the switches' getenv tests), and synccheck
# over gla's and rwkv6's C = 64 cases at 16 and 48 heads. Lands in $OUT/v90a.tar.xz, packed after each step.
set -u
name=v90ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s104/$name/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s104/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v90a; mkdir -p $R; cp "$0" $R/device-script.sh; cp "$(dirname "$0")/ab-build-v90.diff" $R/
pack() { tar -cJf $OUT/v90a.tar.xz -C /tmp out-v90a; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/'
timeout 100 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json; pack
FLA_AB_TILE32=1 timeout 100 $fb check --no-long --filter "$F.*C64" --out $R/check-89.json > $R/check-89.log 2>&1
echo "check-89 rc $?"; grep -E "cases:" $R/check-89.log | tail -1; xz -T0 -f $R/check-89.json
python3 scripts/check-error-compare.py $R/check-89.json.xz $R/check.json.xz > $R/check-errors-90-89.txt 2>&1
sed -n 1,14p $R/check-errors-90-89.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing (see check.log)"; grep -E "FAIL|fail" $R/check.log | head -20; exit 0; }
A='--preset peer --filter ^(gla|rwkv6)/chunk/(fwd/bf16/B[24]-T(4096|16384)-H16-K128|fwdbwd/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K) --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_V88_OUTPUTS=1 FLA_AB_TILE32=1' timeout 110 bash scripts/ab-rounds.sh $fb $fb $R/ab90-88 2 $A \
  > $R/ab90-88-out.txt 2>&1; echo "ab90-88 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab90-88-out.txt; pack
date
timeout 230 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
S='^[a-z_]+/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 40 compute-sanitizer --tool synccheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/synccheck.json > $R/synccheck.log 2>&1
echo "synccheck rc $?"; grep -E "cases:|SUMMARY" $R/synccheck.log | head -3; rm -f $R/synccheck.json; pack; date
