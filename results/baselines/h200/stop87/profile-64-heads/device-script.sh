#!/bin/bash
# stop 87 (cdfcc6b): where gsa's and gla's fused fwd+bwd spend their time at the 64-head D = 64 peer shapes
# (issue 10's cells over 2) in fp32 and bf16, per launch, since gsa version 61 (fp32 in chunk form there).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s87d; mkdir -p $R; cp run-s87d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s87d.tar.xz s87d); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
for dt in fp32 bf16; do
  timeout 120 ./fb profile --filter "^(gsa|gla)/fused_recurrent/fwdbwd/$dt/B(8-T1024|4-T4096)-H(8|16)-K64-V64" --preset peer --out $R/profile-$dt.json > $R/profile-$dt.log 2>&1; echo "profile $dt rc $?"; tail -n1 $R/profile-$dt.log
  pack; date
done
