#!/bin/bash
# stop 63's review build: pass 1's ds/df regions only where added afterwards (gsa::adds_in_key_grads)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/review; mkdir -p $R
timeout 150 ./fb check --filter gsa/ --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa.log
python3 ../scripts/check-error-compare.py check-gsa-final.json $R/check-gsa.json > $R/check-errors-vs-final.txt 2>&1; head -4 $R/check-errors-vs-final.txt
timeout 150 compute-sanitizer --tool memcheck ./fb check --no-isolate --no-long --filter '/gsa/(chunk|fused_recurrent)/fwdbwd/' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -n3 $R/memcheck.log
cd $OUT && tar -cJf review.tar.xz review && rm -rf review
