#!/bin/bash
# stop 69, call E: rwkv7's fp32 fused fwd+bwd with the chunk variant's chunked backward (FLA_AB_RWKV7_FP32_CHUNKS,
# temporary; chunk v53 put its local and channel products in 3xTF32) against the scan's own backward: the rwkv7
# fused fp32 battery with the switch on (long case included), two A/B rounds on the peer shapes
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/e; mkdir -p $R; cp run-e.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
printf '#!/bin/bash\nexec %s/fb "$@"\n' $PWD > fb-scan; printf '#!/bin/bash\nexport FLA_AB_RWKV7_FP32_CHUNKS=1\nexec %s/fb "$@"\n' $PWD > fb-chunks; chmod +x fb-scan fb-chunks
date
bash ../scripts/ab-rounds.sh ./fb-scan ./fb-chunks $R/ab 2 --filter '^rwkv7/fused_recurrent/fwdbwd/fp32/' --preset peer --no-check --min-time 0.2 --min-samples 5; tail -n 12 $R/ab/rounds.txt
date
FLA_AB_RWKV7_FP32_CHUNKS=1 timeout 240 ./fb check --filter '/rwkv7/fused_recurrent.*/fp32/' --out $R/check-rwkv7-fused-fp32-chunks.json > $R/check-rwkv7-fused-fp32-chunks.log 2>&1; tail -n2 $R/check-rwkv7-fused-fp32-chunks.log; grep FAIL $R/check-rwkv7-fused-fp32-chunks.log | head -3
date
cd $OUT && tar cJf e.tar.xz e && rm -rf e
