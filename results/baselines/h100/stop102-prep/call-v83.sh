#!/bin/bash
# Stop 102's prepared call for branch v83-with-v7576 (main's versions 77-82 with stop 100's forward candidates
# 75 + 76 merged in), carrying build-part-s102/v83, against main a88bcfc (/tmp/mainfb, from call-main.sh on the
# same warm machine, carrying build-part-s102/main). The battery over the three ops' bf16 chunk and simple_gla's
# fused_recurrent fwd+bwd cases (bit for bit main's expected: 75 and 76 do not change the arithmetic), the A/B
# over the forwards the candidates touch and simple_gla's fwd+bwd (2 rounds), synccheck and racecheck over the
# C = 64 cases. Lands in $OUT/v83.tar.xz, packed after each step.
set -u
name=v83
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s102/$name/lib $dir/
xz -T0 -dc build-part-s102/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-$name; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/$name.tar.xz -C /tmp out-$name; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/((gla|rwkv6|simple_gla)/chunk|simple_gla/fused_recurrent)/(fwd|fwdbwd)/bf16/'
timeout 150 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json; pack
[ -x /tmp/mainfb/fb ] || { echo "no /tmp/mainfb: run call-main.sh first (the machine went cold)"; exit 0; }
LD_LIBRARY_PATH=/tmp/mainfb/lib timeout 150 /tmp/mainfb/fb check --no-long --filter "$F" \
  --out $R/check-main.json > $R/check-main.log 2>&1; xz -T0 -f $R/check-main.json
python3 scripts/check-error-compare.py $R/check-main.json.xz $R/check.json.xz > $R/check-errors.txt 2>&1
sed -n 3p $R/check-errors.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing (see check.log)"; exit 0; }
timeout 200 bash scripts/ab-rounds.sh /tmp/mainfb/fb $fb $R/ab 2 --preset peer \
  --filter '^((gla|rwkv6)/chunk/fwd/bf16/.*K64|simple_gla/chunk/(fwd|fwdbwd)/bf16/)' \
  --axis C=64 --min-time 0.15 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"
tail -n 20 $R/ab-out.txt; pack; date
S='^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
for tool in synccheck racecheck; do
  timeout 110 compute-sanitizer --tool $tool --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
    --out $R/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "cases:|SUMMARY" $R/$tool.log | head -3; rm -f $R/$tool.json; pack
done
date
