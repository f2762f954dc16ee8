#!/bin/bash
# Stop 102: stop 100's candidate NAME (v76 or v7576, carry build-part-s100/NAME) against version 74 (/tmp/basefb
# from ../stop100-prep/call-base.sh on the same warm machine), short for the budget left: its battery over the
# three ops' bf16 C = 64 chunk cases, errors against version 74's, and the A/B (2 rounds) only.
set -u
name=$1 here=$(dirname "$0")
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s100/$name/lib $dir/
xz -T0 -dc build-part-s100/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-$name; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/$name.tar.xz -C /tmp out-$name; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 80 $fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/.*C64' --out $R/check.json > $R/check.log 2>&1
echo "check rc $?"; tail -n2 $R/check.log; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py $here/../stop100-prep/v74-check.json.xz $R/check.json.xz \
  > $R/check-errors.txt 2>&1; sed -n 3p $R/check-errors.txt; pack
timeout 200 bash scripts/ab-rounds.sh /tmp/basefb/fb $fb $R/ab 2 --preset peer \
  --filter '^((gla|rwkv6)/chunk/fwd/bf16/.*K64|simple_gla/chunk/fwd/bf16/)' \
  --axis C=64 --min-time 0.15 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 16 $R/ab-out.txt
pack; date
