#!/bin/bash
# Stop 101's prepared call A: usage call-grads.sh NAME (carry build-part-s101/NAME). NAME v77 (branch
# v77-grads-wgmma: simple_gla's per-chunk gradients on wgmma), v78 (branch v78-grads-persistent: the same,
# persistent) or v79 (branch v79-state-grads: and the reverse scan by the one-kernel forward's warpgroups)
# against version 74 (/tmp/basefb, from ../stop100-prep/call-base.sh on the same warm machine); or v79ab
# (v79 built with ab-build.diff beside this script) against its own old backward in the same binary
# (FLA_AB_OLD_BWD=1: version 74's backward), which needs no base. The battery over simple_gla's bf16 fwd+bwd,
# chunk and fused_recurrent (which runs the same backward), every chunk size, its C = 64 errors beside
# version 74's (not bit for bit: another summation order); then, where no case failed, the A/B over the peer
# shapes (2 rounds) and the per-kernel profile of both sides. Lands in $OUT/NAME.tar.xz, packed after each step.
set -u
name=$1 here=$(dirname "$0")
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s101/$name/lib $dir/
xz -T0 -dc build-part-s101/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-$name; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/$name.tar.xz -C /tmp out-$name; }
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
timeout 150 $fb check --no-long --filter '/simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/' --out $R/check.json \
  > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; grep -iE " fail" $R/check.log | head -20
xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py $here/../stop100-prep/v74-check.json.xz $R/check.json.xz \
  > $R/check-errors.txt 2>&1; head -12 $R/check-errors.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed or hung: no timing (see check.log)"; exit 0; }
# the base side: the same binary with the old backward (an A/B build), or version 74's binary
if [ "${name%ab}" != "$name" ]; then base=$fb base_env=FLA_AB_OLD_BWD=1
elif [ -x /tmp/basefb/fb ]; then base=/tmp/basefb/fb base_env=
else echo "no /tmp/basefb: the machine went cold between calls, no A/B or base profile"; base= base_env=; fi
if [ -n "$base" ]; then
  BASE_ENV=$base_env timeout 240 bash scripts/ab-rounds.sh $base $fb $R/ab 2 --preset peer \
    --filter '^simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/' --axis C=64 --min-time 0.15 --min-samples 5 \
    --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 16 $R/ab-out.txt
fi
pack; date
for side in base new; do
  bin=$fb env=; [ $side = base ] && bin=$base env=$base_env
  [ -n "$bin" ] || continue
  env $env timeout 60 $bin --filter '^simple_gla/chunk/fwdbwd/bf16/' --preset peer --axis C=64 --min-time 0.1 \
    --min-samples 5 --out $R/profile-$side.json profile > $R/profile-$side.log 2>&1; echo "profile $side rc $?"
  grep -E "^simple|grads|scan|fused" $R/profile-$side.log | head -40
done
pack; date
