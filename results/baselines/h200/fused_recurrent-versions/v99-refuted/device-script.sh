#!/bin/bash
# stop 96, call g: fused_recurrent version 99 (rwkv7's plain bf16 forward at two columns a lane makes four
# chunk-end sums at once where its blocks hold one warp a scheduler, W <= 4; bit for bit expected): rwkv7's
# fused battery against the committed kernels' (base-check.json.xz, all ops: compared where both ran),
# three A/B rounds of rwkv7's bf16 fused forward and fwd+bwd at the peer shapes (base: version 98's binary,
# extracted by call g0), memcheck of rwkv7's bf16 fused forward cases.
cd build-part-s96/new3; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/v99; mkdir -p $R; cp g.sh $R/device-script.sh
pack() { tar -cJf $OUT/v99.tar.xz -C /tmp v99; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for b in ../new2/fb ./fb; do cuobjdump -res-usage $b 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*' | paste - - - - - > $R/registers-$(basename $(dirname $(readlink -f $b))).txt; done
diff $R/registers-new2.txt $R/registers-new3.txt > $R/registers-diff.txt; wc -l $R/registers-*.txt
date
timeout 400 ../../scripts/candidate.sh ../new2/fb ./fb $R 3 '/rwkv7/fused_recurrent/' ../new2/base-check.json.xz --preset peer --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16/' --min-time 0.3 --min-samples 10 --no-check > $R/candidate.log 2>&1; echo "candidate rc $?"
pack
grep -E 'errors in both|cases:' $R/candidate.log | head -4
grep -E 'bf16|geomean|cases over' $R/ab-out.txt | grep -v '^regression' | head -20
date
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/fused_recurrent/fwd/bf16/' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack
date
