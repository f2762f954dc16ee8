#!/bin/bash
# why gsa's fp16 forward at 1,24576,16,64 did not gain from version 70's converters as bf16's did: per-kernel times
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/gsa-profile; mkdir -p $R
./fb profile --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/(bf16|fp16)' --preset B1_T24576_H16_D64 --out $R/profile.json > $R/profile.log 2>&1; grep -v "^ *counters" $R/profile.log | head -80
