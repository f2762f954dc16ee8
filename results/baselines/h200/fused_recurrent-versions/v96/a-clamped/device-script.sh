#!/bin/bash
# stop 95, call b: fused_recurrent version 96 (finish_column_sums makes four sums before it stores any, their
# reads in flight together; bit for bit expected): its fused_recurrent battery against call a's, then two
# A/B rounds of the fused forwards in bf16 at the peer shapes and rwkv7's fwd+bwd (base: call a's binary).
cd build-part-s95n; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/v96; mkdir -p $R; cp new.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
date
timeout 900 ../scripts/candidate.sh ../build-part-s95/fb ./fb $R 2 '/fused_recurrent/' base-check.json.xz --preset peer --filter '^(rwkv7|gla|rwkv6|simple_gla|gsa)/fused_recurrent/fwd/bf16/|^rwkv7/fused_recurrent/fwdbwd/bf16/' --min-time 0.2 --min-samples 5 --no-check > $R/candidate.log 2>&1; echo "candidate rc $?"
cat $R/candidate.log | tail -n 45
tar -cJf $OUT/v96.tar.xz -C /tmp v96
date
