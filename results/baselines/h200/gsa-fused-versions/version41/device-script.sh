#!/bin/bash
# gsa version 41: gsa chunk's backward with each pass's reverse scan (and its operand) on a high-priority side
# stream and its gradients inside the chunks at normal priority (FLA_EXP_SCHED_OLD=1: each pass on one
# stream, as version 39)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_EXP_SCHED_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v41; mkdir -p $R
date
timeout 100 ./fb check --filter 'gsa/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa.log
grep -E " failed| FAILED|error" $R/check-gsa.log | head -10
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^gsa/(fused_recurrent|chunk)/fwdbwd/' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -A32 "^case" $R/ab/rounds.txt | grep -E "case|gsa" ; tail -4 $R/ab/rounds.txt
date
timeout 60 ./fb profile --no-check --filter '^gsa/fused_recurrent/fwdbwd/' --preset B1_T24576_H16_D64 --metrics dram__bytes_read.sum --out $R/profile.json > $R/profile.log 2>&1; echo "profile rc=$?"
date
cd $OUT && tar -cJf v41.tar.xz v41 && rm -rf v41
