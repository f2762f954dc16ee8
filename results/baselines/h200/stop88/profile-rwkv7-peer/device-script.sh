#!/bin/bash
# stop 88: a reading, no change: per-launch profiles of rwkv7's bf16 fused fwd and fwd+bwd (and the chunk
# variant's fwd+bwd) at the peer shapes on the final kernels (d449746's, as 11852bf's), for issue 3's ratios:
# where the chunked backward's time goes per kernel now (stop 78's map, v66-refuted/profile-A.log, predates v69).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s88f; mkdir -p $R; cp run-s88f.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s88f.tar.xz s88f); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
timeout 150 ./fb profile --filter '^rwkv7/(fused_recurrent/(fwd|fwdbwd)|chunk/fwdbwd)/bf16' --preset peer --out $R/profile-rwkv7.json > $R/profile-rwkv7.log 2>&1; echo "profile rc $?"; tail -n 2 $R/profile-rwkv7.log
python3 ../scripts/timeline.py $R/profile-rwkv7.json > $R/timeline-rwkv7.txt 2>&1
pack; date
