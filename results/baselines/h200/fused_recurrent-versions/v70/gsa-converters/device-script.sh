#!/bin/bash
# version 70b: converters beside gsa's passes too (they run side by side)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v70b; mkdir -p $R
date
timeout 70 ./fb check --filter 'gsa/fused_recurrent' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; tail -n2 $R/check-gsa.log
date
timeout 90 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla.json > $R/gsa-gla.log 2>&1; tail -n2 $R/gsa-gla.log
date
cd $OUT && tar -cJf v70b.tar.xz v70b && rm -rf v70b
