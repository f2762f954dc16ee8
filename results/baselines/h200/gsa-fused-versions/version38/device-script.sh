#!/bin/bash
# gsa version 38: pass 1's key gradients add ds and df onto pass 2's (after pass 2's stream), no dq stores for
# the passes (FLA_EXP_FOLD_OLD=1: the add_into passes and the dq stores, as version 37)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_EXP_FOLD_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v38; mkdir -p $R
date
timeout 150 ./fb check --filter gsa/ --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa.log
grep -E " failed| FAILED|error" $R/check-gsa.log | head -10
python3 ../scripts/check-error-compare.py check-gsa-v36.json $R/check-gsa.json > $R/check-errors-vs-v36.txt 2>&1; head -5 $R/check-errors-vs-v36.txt; grep "<--" $R/check-errors-vs-v36.txt | head
date
timeout 240 compute-sanitizer --tool memcheck ./fb check --no-isolate --no-long --filter '/gsa/(chunk|fused_recurrent)/fwdbwd/fp16/' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -n4 $R/memcheck.log
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^(gsa|gla)/fused_recurrent/fwdbwd/' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -A32 "^case" $R/ab/rounds.txt | grep -E "case|gsa" ; tail -4 $R/ab/rounds.txt
date
cd $OUT && tar -cJf v38.tar.xz v38 && rm -rf v38
