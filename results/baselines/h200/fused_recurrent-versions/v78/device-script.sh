#!/bin/bash
# stop 69, call D: after chunk v53 (3xTF32), fp32's fused fwd+bwd in chunk form at every peer shape
# (FLA_AB_FP32_CHUNKS, temporary) against the rules that pick the scans' backward for fp32 at 2^20 (gla,
# rwkv6, simple_gla) and 2^19 (gsa) state elements: two A/B rounds, and the fused fp32 battery with the switch on
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/d; mkdir -p $R; cp run-d.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
printf '#!/bin/bash\nexec %s/fb "$@"\n' $PWD > fb-rules; printf '#!/bin/bash\nexport FLA_AB_FP32_CHUNKS=1\nexec %s/fb "$@"\n' $PWD > fb-chunks; chmod +x fb-rules fb-chunks
FLA_AB_FP32_CHUNKS=1 ./fb check --no-long --filter '/fused_recurrent/.*/fp32/' --out $R/check-fused-fp32-chunks.json > $R/check-fused-fp32-chunks.log 2>&1; tail -n2 $R/check-fused-fp32-chunks.log; grep FAIL $R/check-fused-fp32-chunks.log | head -3
date
bash ../scripts/ab-rounds.sh ./fb-rules ./fb-chunks $R/ab 2 --filter '^(gla|rwkv6|simple_gla|gsa)/fused_recurrent/fwdbwd/fp32/' --preset peer --no-check --min-time 0.2 --min-samples 5; tail -n 28 $R/ab/rounds.txt
date
cd $OUT && tar cJf d.tar.xz d && rm -rf d
