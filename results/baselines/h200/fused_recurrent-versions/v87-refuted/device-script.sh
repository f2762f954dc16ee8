#!/bin/bash
# stop 75: fused_recurrent version 87 candidate: rwkv7's bf16 forward at K = 128, where the layout gives one
# column of 16 keys a lane, at 8 keys of two columns a lane (same warps and blocks) behind FLA_EXP_K8C2
# (1: the plain forward; 2: the saving forward too, without the room). Checks with it on, A/B rounds, ncu.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s75b; mkdir -p $R
cp run-s75b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s75b.tar.xz s75b); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7.*bfloat16' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
FLA_EXP_K8C2=2 timeout 120 ./fb check --filter 'rwkv7/fused_recurrent/' --out $R/check-k8c2.json > $R/check-k8c2.log 2>&1; tail -n2 $R/check-k8c2.log
FLA_EXP_K8C2=2 timeout 100 ./fb --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16/B2-T16384' --preset peer --min-time 0.2 --min-samples 5 --out $R/peek.json > $R/peek.log 2>&1; grep '^rwkv7' $R/peek.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16/B(2-T16384|4-T4096-H16-K128|8-T1024)'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  FLA_EXP_K8C2=1 ./fb --filter "$F" $O --out $R/one-$round.json > $R/one-$round.log 2>&1; tail -n1 $R/one-$round.log
  FLA_EXP_K8C2=2 ./fb --filter "$F" $O --out $R/two-$round.json > $R/two-$round.log 2>&1; tail -n1 $R/two-$round.log
  pack; date
done
./fb compare --rounds $R/old-1.json $R/one-1.json $R/old-2.json $R/one-2.json > $R/ab-one.txt 2>&1
./fb compare --rounds $R/old-1.json $R/two-1.json $R/old-2.json $R/two-2.json > $R/ab-two.txt 2>&1
grep -E 'B2-T16384|geomean' $R/ab-one.txt $R/ab-two.txt
FLA_EXP_K8C2=2 ./fb profile --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16/B2-T16384' --preset peer --out $R/profile.json > $R/profile.log 2>&1
grep -h "fused_recurrent_fwd_kernel\|^rwkv7" $R/profile.log
pack; date
FLA_EXP_K8C2=2 timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16/.*K128' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log
pack; date
FLA_EXP_K8C2=1 timeout 120 ncu --set full --import-source yes -k regex:fused_recurrent_fwd --launch-count 1 -o /tmp/ncu-fwd ./fb --filter "^rwkv7/fused_recurrent/fwd/bf16/B2-T16384-H16-K128" --preset peer --profile-once --no-check --out /tmp/j-fwd.json > $R/ncu-fwd.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/ncu-fwd.ncu-rep --page details > $R/ncu-fwd-details.txt 2>&1
ncu --import /tmp/ncu-fwd.ncu-rep --page source --csv --print-source sass > $R/ncu-fwd-source.csv 2>&1; gzip -9 $R/ncu-fwd-source.csv
grep -E "Duration|Issue Slots Busy|Executed Ipc A|Registers Per" $R/ncu-fwd-details.txt
pack; date
