#!/bin/bash
# stop 64's final build (gsa versions 39, 41, 42): the gsa battery (against version 42's experiment build),
# memcheck of gsa's fp32 fwd+bwd (its pass 1 now adds in its key gradients), the gsa/gla fused table and gsa
# chunk's at the peer shapes
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/final; mkdir -p $R
date
timeout 100 ./fb check --filter gsa/ --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa.log
python3 ../scripts/check-error-compare.py check-gsa-v42.json $R/check-gsa.json > $R/check-errors-vs-v42.txt 2>&1; head -5 $R/check-errors-vs-v42.txt; grep "<--" $R/check-errors-vs-v42.txt | head
date
timeout 100 compute-sanitizer --tool memcheck ./fb check --no-isolate --no-long --filter '/gsa/(chunk|fused_recurrent)/fwdbwd/fp32/' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -n4 $R/memcheck.log
date
timeout 150 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n1 $R/gsa-gla-peer.log
date
timeout 60 ./fb --filter '^gsa/chunk/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-chunk-peer.json > $R/gsa-chunk-peer.log 2>&1; tail -n1 $R/gsa-chunk-peer.log
date
cd $OUT && tar -cJf final.tar.xz final && rm -rf final
