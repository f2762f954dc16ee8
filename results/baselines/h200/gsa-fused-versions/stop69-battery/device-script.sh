#!/bin/bash
# stop 69, call A: the gsa battery with the many-slot-heads cases (fp32's scans' backward at M = 32 and 128),
# and ncu of gsa's own backward kernels (logit gradients, the dq output pass) in the fused bf16 fwd+bwd
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/a; mkdir -p $R; cp run-a.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
./fb check --no-long --filter '/gsa/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; tail -n2 $R/check-gsa.log; grep -c many_heads $R/check-gsa.log; grep FAIL $R/check-gsa.log | head -3
xz -9 $R/check-gsa.json
for shape in B1-T24576-H16-K64 B8-T1024-H8-K64; do
 for k in chunk_logit_grads chunk_output; do
  n=$k-$shape
  timeout 150 ncu --set full --import-source yes -k regex:$k --launch-count 1 -o /tmp/$n ./fb --filter "^gsa/fused_recurrent/fwdbwd/bf16/$shape" --preset peer --profile-once --no-check --out /tmp/j.json > $R/ncu-$n.log 2>&1; echo "ncu $n rc $?"
  ncu --import /tmp/$n.ncu-rep --page details > $R/ncu-$n-details.txt 2>&1
  ncu --import /tmp/$n.ncu-rep --page source --csv --print-source sass > $R/ncu-$n-source.csv 2>&1; gzip -9 $R/ncu-$n-source.csv
  grep -E "^  [a-z_]+.*\(|Duration|Issue Slots Busy|Executed Ipc A|Registers Per|Achieved Occ|DRAM Throughput|Memory Throughput" $R/ncu-$n-details.txt | head -12
 done
done
date
