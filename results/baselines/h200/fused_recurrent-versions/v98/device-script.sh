#!/bin/bash
# stop 96, call f: fused_recurrent version 98 (the plain bf16 forward at 8 keys a lane makes four of its
# chunk-end sums at once; bit for bit expected): its fused_recurrent battery against call a's (the committed
# kernels', base-check.json.xz), two A/B rounds of every op's bf16 fused forward at the peer shapes and
# rwkv7's fwd+bwd (base: the committed binary, extracted by call e2), and memcheck of the new path's cases.
cd build-part-s96/new2; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/v98; mkdir -p $R; cp f.sh $R/device-script.sh
pack() { tar -cJf $OUT/v98.tar.xz -C /tmp v98; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for b in ../base/fb ./fb; do cuobjdump -res-usage $b 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*' | paste - - - - - > $R/registers-$(basename $(dirname $(readlink -f $b))).txt; done
diff $R/registers-base.txt $R/registers-new2.txt > $R/registers-diff.txt; wc -l $R/registers-*.txt
date
timeout 420 ../../scripts/candidate.sh ../base/fb ./fb $R 2 '/fused_recurrent/' ./base-check.json.xz --preset peer --filter '^(rwkv7|gla|rwkv6|simple_gla|gsa)/fused_recurrent/fwd/bf16/|^rwkv7/fused_recurrent/fwdbwd/bf16/' --min-time 0.15 --min-samples 5 --no-check > $R/candidate.log 2>&1; echo "candidate rc $?"
pack
grep -E 'errors in both|cases:' $R/candidate.log | head -4
grep -E 'bf16|geomean|cases over' $R/ab-out.txt | grep -v '^regression' | head -40
date
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '(rwkv7|gla|simple_gla|rwkv6|gsa)/fused_recurrent/fwd/bf16/' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack
date
