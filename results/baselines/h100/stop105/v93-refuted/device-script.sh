#!/bin/bash
# Stop 105's third call: chunk version 93 (the operands pass writes the keys' and queries' prepared rows from
# the rows intra_chunk_scores leaves scaled within their sub-chunks, times a factor a sub-chunk and channel),
# carrying build-part-s105/v93ab: main at 93 plus ab-build-v93.diff beside this script (FLA_AB_V92=1: 92's pass).
# The battery over gla's and rwkv6's bf16 chunk C = 64 cases with and without the switch (errors compared: the
# prepared rows change by fp32 rounding), the A/B at the peer shapes the prepared forward takes (2 rounds),
# synccheck, ncu of gla's operands pass at 4,4096,16,128 (92's: 346 us), issue 4's table with no switch set.
# Lands in $OUT/v93.tar.xz, packed after each step.
set -u
name=v93ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s105/$name/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s105/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v93; mkdir -p $R; cp "$0" $R/device-script.sh; cp "$(dirname "$0")/ab-build-v93.diff" $R/
pack() { tar -cJf $OUT/v93.tar.xz -C /tmp out-v93; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/.*C64'
timeout 60 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json; pack
FLA_AB_V92=1 timeout 60 $fb check --no-long --filter "$F" --out $R/check-92.json > $R/check-92.log 2>&1
echo "check-92 rc $?"; xz -T0 -f $R/check-92.json
python3 scripts/check-error-compare.py $R/check-92.json.xz $R/check.json.xz > $R/check-errors-93-92.txt 2>&1
sed -n 1,14p $R/check-errors-93-92.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing (see check.log)"; grep -iE "fail" $R/check.log | head; exit 0; }
A='--preset peer --filter ^(gla|rwkv6)/chunk/(fwd/bf16/B[24]-T(4096|16384)-H16-K128|fwdbwd/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K) --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_V92=1' timeout 120 bash scripts/ab-rounds.sh $fb $fb $R/ab93 2 $A > $R/ab93-out.txt 2>&1
echo "ab93 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab93-out.txt; pack; date
S='^[a-z_]+/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 40 compute-sanitizer --tool synccheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/synccheck.json > $R/synccheck.log 2>&1
echo "synccheck rc $?"; grep -E "cases:|SUMMARY" $R/synccheck.log | head -3; rm -f $R/synccheck.json; pack
timeout 60 ncu --set full --import-source yes -k "regex:chunk_operands_kernel" --launch-count 1 -o /tmp/gla \
  $fb --filter "^gla/chunk/fwd/bf16/" --axis B=4 --axis T=4096 --axis H=16 --axis K=128 --axis V=128 \
  --axis C=64 --profile-once --no-check --out /tmp/j-gla.json > $R/ncu-gla.log 2>&1; echo "ncu gla rc $?"
ncu --import /tmp/gla.ncu-rep --page details > $R/gla-details.txt 2>&1
ncu --import /tmp/gla.ncu-rep --page source --csv --print-source sass > $R/gla-source.csv 2>&1; gzip -9f $R/gla-source.csv
grep -E "Duration|L1/TEX Cache Throughput|Issue Slots Busy|Registers Per" $R/gla-details.txt | head -4; pack; date
timeout 150 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json 2>/dev/null; pack; date
