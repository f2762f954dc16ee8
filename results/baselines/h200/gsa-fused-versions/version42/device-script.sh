#!/bin/bash
# gsa version 42: fp32's pass 1 key gradients add ds and df onto pass 2's too, now that version 41's schedule
# runs pass 2's chunk gradients early (FLA_EXP_NOFOLD32=1: fp32 adds afterwards, as before)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_EXP_NOFOLD32=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v42; mkdir -p $R
date
timeout 100 ./fb check --filter gsa/ --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa.log
python3 ../scripts/check-error-compare.py check-gsa-final64.json $R/check-gsa.json > $R/check-errors-vs-final64.txt 2>&1; head -5 $R/check-errors-vs-final64.txt; grep "<--" $R/check-errors-vs-final64.txt | head
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 3 --filter '^(gsa/(fused_recurrent|chunk)|gla/fused_recurrent)/fwdbwd/fp32' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -A20 "^case" $R/ab/rounds.txt | grep -E "case|gsa|gla" ; tail -4 $R/ab/rounds.txt
date
cd $OUT && tar -cJf v42.tar.xz v42 && rm -rf v42
