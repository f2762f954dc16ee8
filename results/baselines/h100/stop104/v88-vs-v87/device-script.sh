#!/bin/bash
# Stop 104's second call for chunk versions 87-88, carrying build-part-s104/v88ab (as call-v88a.sh; its
# switches: FLA_AB_NO_PREPARED=1 main's forwards, FLA_AB_THREE_PASSES=1 version 87). The battery at C = 64
# as 87 (its errors against 88's: bit for bit expected, the same sums in the same order); the A/B of 88
# against 87 at the peer shapes (C = 64, 2 rounds); synccheck and racecheck over the C = 64 cases at 16 and 48
# heads. Lands in $OUT/v88b.tar.xz, packed after each step.
set -u
name=v88ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s104/$name/lib $dir/
[ -x $dir/fb ] || { xz -T0 -dc build-part-s104/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb; }
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-v88b; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/v88b.tar.xz -C /tmp out-v88b; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/.*C64'
timeout 100 $fb check --no-long --filter "$F" --out $R/check-88.json > $R/check-88.log 2>&1
echo "check-88 rc $?"; grep -E "cases:" $R/check-88.log | tail -1; xz -T0 -f $R/check-88.json
FLA_AB_THREE_PASSES=1 timeout 100 $fb check --no-long --filter "$F" --out $R/check-87.json > $R/check-87.log 2>&1
echo "check-87 rc $?"; grep -E "cases:" $R/check-87.log | tail -1; xz -T0 -f $R/check-87.json
python3 scripts/check-error-compare.py $R/check-87.json.xz $R/check-88.json.xz > $R/check-errors-88-87.txt 2>&1
sed -n 1,8p $R/check-errors-88-87.txt; pack
A='--preset peer --filter ^(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/ --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_THREE_PASSES=1' timeout 200 bash scripts/ab-rounds.sh $fb $fb $R/ab88-87 2 $A > $R/ab88-87-out.txt 2>&1
echo "ab88-87 rc $?"; tail -n 24 $R/ab88-87-out.txt; pack; date
S='^[a-z_]+/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in synccheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done; date
