#!/bin/bash
# stop 84: where gsa's and gla's fused fwd+bwd spend their time at the 64-head D = 64 peer shapes (issue 10's
# cells over 2), per launch, in bf16 and fp32; the stop 83 A/B binary at its default (= the committed v58).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s84a; mkdir -p $R; cp run-s84a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s84a.tar.xz s84a); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
for dt in bf16 fp32 fp16; do
  timeout 100 ./fb profile --filter "^(gsa|gla)/fused_recurrent/fwdbwd/$dt/B(8-T1024|4-T4096)-H(8|16)-K64-V64" --preset peer --out $R/profile-$dt.json > $R/profile-$dt.log 2>&1; tail -n1 $R/profile-$dt.log
  pack
done
date
