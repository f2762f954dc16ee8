#!/bin/bash
# stop 79: simple_gla fused forward v56: state warps and intra warps a chunk apart (C = 64).
# A: FLA_AB_FUSED=0 (the committed split path), B: default (fused at K = 128), C: FLA_AB_FUSED=1 (fused at K = 64 too).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s79b; mkdir -p $R; cp run-s79b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s79b.tar.xz s79b); }
nvidia-smi -L > $R/gpu.txt; date
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'scalar_fused_forward' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*' | paste - - - - > $R/registers.txt 2>&1
A="env FLA_AB_FUSED=0"; B="env"; C="env FLA_AB_FUSED=1"
for x in A C; do timeout 150 ${!x} ./fb check --filter 'simple_gla/chunk/' --out $R/check-$x.json > $R/check-$x.log 2>&1; tail -n2 $R/check-$x.log; done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^simple_gla/chunk/(fwd|fwdbwd)/bf16/'
for x in A C B; do ${!x} ./fb --filter "$F" $O --out $R/$x-1.json > $R/$x-1.log 2>&1; tail -n1 $R/$x-1.log; done
pack; date
./fb compare $R/A-1.json $R/C-1.json > $R/ab-AC.txt 2>&1; tail -n 30 $R/ab-AC.txt
$C ./fb profile --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/.*C64' --preset peer --out $R/profile-C.json > $R/profile-C.log 2>&1; grep -h "fused\|scalar" $R/profile-C.log | head -40
pack; date
FLA_AB_FUSED=1 timeout 150 compute-sanitizer --tool racecheck --print-limit 20 ./fb check --no-isolate --filter "simple_gla/chunk/(fwd|fwdbwd)/bf16/.*C64" --out $R/racecheck.json > $R/racecheck.log 2>&1; tail -n3 $R/racecheck.log
pack; date
