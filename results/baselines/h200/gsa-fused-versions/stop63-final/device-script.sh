#!/bin/bash
# stop 63's final build (gsa versions 36-38): the gsa battery, memcheck of gsa's fp16 fwd+bwd, the other chunk
# ops' bf16 fwd+bwd battery (their key-gradient kernel gained the null-dq and add flags), the gsa/gla table
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/final; mkdir -p $R
date
timeout 150 ./fb check --filter gsa/ --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa.log
python3 ../scripts/check-error-compare.py check-gsa-v38.json $R/check-gsa.json > $R/check-errors-vs-v38.txt 2>&1; head -5 $R/check-errors-vs-v38.txt; grep "<--" $R/check-errors-vs-v38.txt | head
date
timeout 150 ./fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/fwdbwd/' --out $R/check-chunk-fwdbwd.json > $R/check-chunk-fwdbwd.log 2>&1; echo "chunk check rc=$?"; tail -n1 $R/check-chunk-fwdbwd.log
date
timeout 120 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n1 $R/gsa-gla-peer.log
date
timeout 60 ./fb --filter '^gsa/chunk/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-chunk-peer.json > $R/gsa-chunk-peer.log 2>&1; tail -n1 $R/gsa-chunk-peer.log
cd $OUT && tar -cJf final.tar.xz final && rm -rf final
