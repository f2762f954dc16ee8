#!/bin/bash
# stop 96, call b: fused_recurrent version 97 (the column passes' packed key vectors copied by cp.async straight
# into the records, two record buffers, the block converting only the decays and slices; bit for bit
# expected): its fused_recurrent battery against call a's, two A/B rounds of every op's bf16 fused forward and
# fwd+bwd at the peer shapes (base: call a's binary), then memcheck of the new path's bf16 cases.
cd build-part-s96/new; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/v97; mkdir -p $R; cp b.sh $R/device-script.sh
pack() { tar -cJf $OUT/v97.tar.xz -C /tmp v97; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
for b in ../base/fb ./fb; do cuobjdump -res-usage $b 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel\|fused_recurrent_bwd_columns_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*' | paste - - - - - > $R/registers-$(basename $(dirname $(readlink -f $b))).txt; done
diff $R/registers-base.txt $R/registers-new.txt > $R/registers-diff.txt; wc -l $R/registers-*.txt
date
timeout 470 ../../scripts/candidate.sh ../base/fb ./fb $R 2 '/fused_recurrent/' ../base/base-check.json.xz --preset peer --filter '^(rwkv7|gla|rwkv6|simple_gla|gsa)/fused_recurrent/(fwd|fwdbwd)/bf16/' --min-time 0.15 --min-samples 5 --no-check > $R/candidate.log 2>&1; echo "candidate rc $?"
pack
grep -E 'errors in both|cases:' $R/candidate.log | head -4
grep -E 'slower|faster|geomean|cases over' $R/ab-out.txt | grep -v '^regression' | head -40
date
timeout 90 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '(rwkv7|gla|simple_gla|gsa)/fused_recurrent/.*/bf16/.*(T37|T65|T1000)-' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack
date
