#!/bin/bash
# (the second part of call-v92b.sh, on the same warm machine)
# Stop 105's second call for chunk version 92 (its first build's staging stored 4 bytes at a time, fixed:
# Tile::store's halves indexed as float4s) (the operands pass's shared-memory traffic: 16-byte halves in an order
# free of bank conflicts where a thread moves 8 floats of a row (staging.cuh's Tile::store, scan.cuh's
# write_prepared), the in-place scaling of q and k 4 channels a thread, rwkv6's bonus 8 lanes a row),
# carrying build-part-s105/v92bab: main at v92 plus ab-build-v92b.diff beside this script (FLA_AB_V91=1: the
# operands pass with version 91's bonus, scaling and write order; the staging's order is 92's on both sides).
# The battery over every chunk variant (all ops, dtypes and C; the changed helpers are shared by all of them);
# at gla's and rwkv6's bf16 C = 64 also with the switch (errors compared: bit for bit but rwkv6's bonus sums);
# the A/B at the peer shapes the prepared forward takes (2 rounds); ncu of the operands pass at 4,4096,16,128
# (gla, rwkv6: 91's were 399 / 496 us, 37% of shared wavefronts excessive); issue 4's table; synccheck.
# Lands in $OUT/v92c.tar.xz, packed after each step.
set -u
name=v92bab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s105/$name/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s105/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v92c; mkdir -p $R; cp "$0" $R/device-script.sh; cp "$(dirname "$0")/ab-build-v92b.diff" $R/
pack() { tar -cJf $OUT/v92c.tar.xz -C /tmp out-v92c; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
# the full battery of the first part ran out of its 200 s after 3,450 ok cases, none failed (check.log):
# here gla's and rwkv6's bf16 C = 64 cases, the ones the switch compares
F='/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/.*C64'
timeout 100 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json; pack
[ $rc -eq 0 ] || { grep -iE "fail" $R/check.log | head -20; }
python3 scripts/check-error-compare.py /tmp/out-v92b/check-91.json.xz $R/check.json.xz > $R/check-errors-92-91.txt 2>&1
sed -n 1,12p $R/check-errors-92-91.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing (see check.log)"; exit 0; }
for op in gla rwkv6; do
  timeout 100 ncu --set full --import-source yes -k "regex:chunk_operands_kernel" --launch-count 1 -o /tmp/$op \
    $fb --filter "^$op/chunk/fwd/bf16/" --axis B=4 --axis T=4096 --axis H=16 --axis K=128 --axis V=128 \
    --axis C=64 --profile-once --no-check --out /tmp/j-$op.json > $R/ncu-$op.log 2>&1; echo "ncu $op rc $?"
  ncu --import /tmp/$op.ncu-rep --page details > $R/$op-details.txt 2>&1
  ncu --import /tmp/$op.ncu-rep --page source --csv --print-source sass > $R/$op-source.csv 2>&1
  gzip -9f $R/$op-source.csv
  grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|Issue Slots Busy|Registers Per" $R/$op-details.txt | head -5
  pack
done
A='--preset peer --filter ^(gla|rwkv6)/chunk/(fwd/bf16/B[24]-T(4096|16384)-H16-K128|fwdbwd/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K) --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_V91=1' timeout 120 bash scripts/ab-rounds.sh $fb $fb $R/ab92 2 $A > $R/ab92-out.txt 2>&1
echo "ab92 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab92-out.txt; pack; date
timeout 200 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
S='^[a-z_]+/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 40 compute-sanitizer --tool synccheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/synccheck.json > $R/synccheck.log 2>&1
echo "synccheck rc $?"; grep -E "cases:|SUMMARY" $R/synccheck.log | head -3; rm -f $R/synccheck.json; pack; date
