#!/bin/bash
# Stop 101's prepared call for issue 5 (carry build-part-s101/rwkv7ab; run it on an H100: kind
# nvidia-h100-x1): main 54039cb built with ab-build.diff beside this script, whose FLA_AB_FWD_COLS8=1 takes
# rwkv7 chunk v71's rule away (the pieced forward's tensor-core state pass at 8 value columns a block rather
# than 16 at few heads). Stop 100's H100 table had 1,24576,16,64's forward at C = 32 1.10x slower than stop
# 81's (1.751 -> 1.930 ms); v71 measured 0.98x there on an H200. The A/B (2 rounds, the old rule as base)
# over rwkv7 chunk's bf16 forward at the peer shapes, C = 32 and 64, then the bf16 forward battery with the
# switch on (bit for bit the switch off, as v71's was). Lands in $OUT/rwkv7ab.tar.xz.
set -u
name=rwkv7ab
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s101/$name/lib $dir/
xz -T0 -dc build-part-s101/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-$name; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/$name.tar.xz -C /tmp out-$name; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
BASE_ENV=FLA_AB_FWD_COLS8=1 timeout 170 bash scripts/ab-rounds.sh $fb $fb $R/ab 2 --preset peer \
  --filter '^rwkv7/chunk/fwd/bf16/' --axis C=32,64 --min-time 0.12 --min-samples 5 --no-check \
  > $R/ab-out.txt 2>&1
echo "ab rc $?"; tail -n 16 $R/ab-out.txt; pack; date
for side in 0 1; do
  FLA_AB_FWD_COLS8=$side timeout 40 $fb check --no-long --filter '/rwkv7/chunk/fwd/bf16/' \
    --out $R/check-cols8-$side.json > $R/check-cols8-$side.log 2>&1
  echo "check FLA_AB_FWD_COLS8=$side rc $?"; grep -E "cases:" $R/check-cols8-$side.log | tail -1
  xz -T0 -f $R/check-cols8-$side.json
done
python3 scripts/check-error-compare.py $R/check-cols8-1.json.xz $R/check-cols8-0.json.xz > $R/check-errors.txt 2>&1
head -5 $R/check-errors.txt; pack; date
