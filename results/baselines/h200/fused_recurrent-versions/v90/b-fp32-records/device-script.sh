#!/bin/bash
# stop 81: fused_recurrent version 90 candidates. rwkv7's bf16 plain forward at 16 keys a lane, where
# one block has an SM: two columns a lane in 4-warp blocks (version 76's layout, FLA_AB_CPL2=1), with the
# records' a and b (FLA_AB_F32=1, version 77's) or q, k, a and b (FLA_AB_F32=2) in fp32, so that the loop
# unpacks fewer bf16 keys; at one warp a scheduler the loop's instruction count is what bounds it (s81a's
# ncu: 1.87 cycles an issued instruction a warp). Checks, five-way A/B rounds, ncu.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s81b; mkdir -p $R
cp run-s81b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s81b.tar.xz s81b); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*AbFp32' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
for f in 1 2; do
  FLA_AB_CPL2=1 FLA_AB_F32=$f timeout 100 ./fb check --filter 'rwkv7/fused_recurrent/.*/bf16/' --out $R/check-cpl2-f32-$f.json > $R/check-cpl2-f32-$f.log 2>&1; tail -n1 $R/check-cpl2-f32-$f.log
done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwd/bf16/B(2-T16384|4-T4096-H16-K128)'
run() { local name=$1; shift; env "$@" ./fb --filter "$F" $O --out $R/$name.json > $R/$name.log 2>&1; grep B2-T16384 $R/$name.log | sed "s/^/$name /"; }
for round in 1 2; do
  run base-$round X=0
  run cpl2-$round FLA_AB_CPL2=1
  run f32a-$round FLA_AB_F32=1
  run cpl2f32a-$round FLA_AB_CPL2=1 FLA_AB_F32=1
  run cpl2f32b-$round FLA_AB_CPL2=1 FLA_AB_F32=2
  pack; date
done
for x in cpl2 f32a cpl2f32a cpl2f32b; do
  ./fb compare --rounds $R/base-1.json $R/$x-1.json $R/base-2.json $R/$x-2.json > $R/ab-$x.txt 2>&1
  echo "== $x"; grep -E "^rwkv7" $R/ab-$x.txt
done
pack; date
for x in "cpl2 FLA_AB_CPL2=1" "cpl2f32b FLA_AB_CPL2=1 FLA_AB_F32=2"; do
  set -- $x; name=$1; shift
  env "$@" timeout 100 ncu --set full --import-source yes -k regex:fused_recurrent_fwd --launch-count 1 -o /tmp/ncu-$name ./fb --filter "^rwkv7/fused_recurrent/fwd/bf16/B2-T16384-H16-K128" --preset peer --profile-once --no-check --out /tmp/j-$name.json > $R/ncu-$name.log 2>&1; echo "ncu $name rc $?"
  ncu --import /tmp/ncu-$name.ncu-rep --page details > $R/ncu-$name-details.txt 2>&1
  ncu --import /tmp/ncu-$name.ncu-rep --page source --csv --print-source sass > $R/ncu-$name-source.csv 2>&1; gzip -9 $R/ncu-$name-source.csv
  grep -E "Duration|Issue Slots Busy|Issued Instructions  |Registers Per" $R/ncu-$name-details.txt
  pack
done
date
