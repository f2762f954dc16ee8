#!/bin/bash
# stop 74: version 84 (the room's own saving instance, merged on main) checked and timed, and ncu of its
# saving forward beside the plain forward at 2,16384,16,128 bf16 (the saving kernel's excess over the plain).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s74b; mkdir -p $R
cp run-s74b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s74b.tar.xz s74b); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7.*Li16' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
timeout 150 ./fb check --filter '/fused_recurrent/' --out $R/check-fused.json > $R/check-fused.log 2>&1; tail -n2 $R/check-fused.log
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/.*K128' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
timeout 90 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/.*K128' --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
./fb --filter '^rwkv7/fused_recurrent/(fwd/bf16|fwdbwd/(bf16|fp16))/' $O --out $R/v84.json > $R/v84.log 2>&1; tail -n1 $R/v84.log
./fb --filter '^(gla|rwkv6|simple_gla)/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' $O --out $R/v84-others.json > $R/v84-others.log 2>&1; tail -n1 $R/v84-others.log
pack; date
for mode in fwd fwdbwd; do
  timeout 150 ncu --set full --import-source yes -k regex:fused_recurrent_fwd --launch-count 1 -o /tmp/ncu-$mode ./fb --filter "^rwkv7/fused_recurrent/$mode/bf16/B2-T16384-H16-K128" --preset peer --profile-once --no-check --out /tmp/j-$mode.json > $R/ncu-$mode.log 2>&1; echo "ncu $mode rc $?"
  ncu --import /tmp/ncu-$mode.ncu-rep --page details > $R/ncu-$mode-details.txt 2>&1
  ncu --import /tmp/ncu-$mode.ncu-rep --page source --csv --print-source sass > $R/ncu-$mode-source.csv 2>&1; gzip -9 $R/ncu-$mode-source.csv
  grep -E "Duration|Issue Slots Busy|Executed Ipc A|Registers Per" $R/ncu-$mode-details.txt
  pack; date
done
