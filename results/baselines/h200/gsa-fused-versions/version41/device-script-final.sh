#!/bin/bash
# stop 64's final build (gsa versions 39 and 41): the gsa battery (against version 41's experiment build),
# the other chunk ops' fwd+bwd battery (launch_backward split in two launches), memcheck of gsa's fp16
# fwd+bwd, the gsa/gla fused table and gsa chunk's at the peer shapes
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/final; mkdir -p $R
date
timeout 100 ./fb check --filter gsa/ --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa.log
python3 ../scripts/check-error-compare.py check-gsa-v41.json $R/check-gsa.json > $R/check-errors-vs-v41.txt 2>&1; head -5 $R/check-errors-vs-v41.txt; grep "<--" $R/check-errors-vs-v41.txt | head
date
timeout 60 ./fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/fwdbwd/' --out $R/check-chunk-fwdbwd.json > $R/check-chunk-fwdbwd.log 2>&1; echo "chunk check rc=$?"; tail -n1 $R/check-chunk-fwdbwd.log
date
timeout 150 compute-sanitizer --tool memcheck ./fb check --no-isolate --no-long --filter '/gsa/(chunk|fused_recurrent)/fwdbwd/fp16/' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -n4 $R/memcheck.log
date
timeout 150 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n1 $R/gsa-gla-peer.log
date
timeout 60 ./fb --filter '^gsa/chunk/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-chunk-peer.json > $R/gsa-chunk-peer.log 2>&1; tail -n1 $R/gsa-chunk-peer.log
date
cd $OUT && tar -cJf final.tar.xz final && rm -rf final
