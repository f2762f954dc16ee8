#!/bin/bash
# gsa version 36: fp16's dq pass on the tensor cores from the balanced dz, each row times 2^-e
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v36; mkdir -p $R
date
timeout 150 ./fb check --filter gsa/ --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n2 $R/check-gsa.log
grep -E " failed| FAILED|error" $R/check-gsa.log | head -10
python3 ../scripts/check-error-compare.py check-gsa-v34.json $R/check-gsa.json > $R/check-errors-vs-v34.txt 2>&1; tail -30 $R/check-errors-vs-v34.txt
date
timeout 120 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/(fp16|fp32)' --preset B1_T24576_H16_D64 --min-time 0.2 --min-samples 5 --out $R/gsa-gla-fp16-fp32-1-24576.json > $R/gsa-gla-fp16-fp32-1-24576.log 2>&1; grep -E "^(gsa|gla)|cases" $R/gsa-gla-fp16-fp32-1-24576.log | cut -c1-100
date
timeout 150 ./fb --filter '^(gsa/(fused_recurrent|chunk)|gla/fused_recurrent)/fwdbwd/fp16' --preset peer --min-time 0.2 --min-samples 5 --out $R/fp16-fwdbwd-peer.json > $R/fp16-fwdbwd-peer.log 2>&1; grep -E "^(gsa|gla)|cases" $R/fp16-fwdbwd-peer.log | cut -c1-100
date
timeout 60 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/fp16' --preset B1_T24576_H16_D64 --no-check --min-time 0.2 --min-samples 3 > $R/profile-gsa-fp16-1-24576.log 2>&1; grep -E "ms|kernel|%" $R/profile-gsa-fp16-1-24576.log | cut -c1-130 | head -30
cd $OUT && tar -cJf v36.tar.xz v36 && rm -rf v36
