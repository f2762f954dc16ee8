#!/bin/bash
# stop 90, call b (carries build-part-a: the HEAD build 4267cd9, bundled at stop 89): which SASS each
# f32 -> tf32 rounding takes on sm_90 and its results on specials; the fp32 battery of the chunk-form
# kernels on HEAD (the error reference for chunk version 57). Leaves build-part-a/fb for call c.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/s90b; mkdir -p $R; cp run-s90b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
(cd tf32 && nvcc -O3 -arch=sm_90 -o tf32 tf32.cu && ./tf32 > $R/tf32-run.txt 2>&1; cat $R/tf32-run.txt
 cuobjdump -sass tf32 > $R/tf32.sass 2>&1
 for k in k_rna k_rn k_rz; do echo "== $k"; awk "/Function : .*${k}P/{f=1} f&&/EXIT/{f=0} f" $R/tf32.sass | grep -oE "^\s+/\*[0-9a-f]{4}\*/\s+[A-Z0-9.]+" | awk '{print $2}' | sort | uniq -c | sort -rn; done > $R/tf32-sass-mix.txt 2>&1; cat $R/tf32-sass-mix.txt)
date
timeout 240 ./fb check --filter '/(chunk|fused_recurrent)/.*/fp32/' --out $R/check-fp32-A.json > $R/check-fp32-A.log 2>&1; echo "check A rc $?"; tail -n2 $R/check-fp32-A.log
xz -T2 $R/check-fp32-A.json; cp $R/check-fp32-A.json.xz ./ref-fp32-A.json.xz
date
