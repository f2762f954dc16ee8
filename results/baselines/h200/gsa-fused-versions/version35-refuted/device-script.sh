#!/bin/bash
# gsa version 35 experiment: the chunk backward's dq pass on a side stream of its own after the logit gradients (FLA_EXP_DQSIDE)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nexec %s/fb "$@"\n' $PWD > fb-off; printf '#!/bin/bash\nFLA_EXP_DQSIDE=1 exec %s/fb "$@"\n' $PWD > fb-on; chmod +x fb-off fb-on
R=$OUT/dq; mkdir -p $R
date
bash ../scripts/ab-rounds.sh ./fb-off ./fb-on $R/ab 2 --filter '^gsa/(fused_recurrent|chunk)/fwdbwd/' --preset peer --no-check --min-time 0.1 --min-samples 5 > $R/ab.out 2>&1
tail -36 $R/ab/rounds.txt
date
./fb-on check --no-long --filter '^gsa/' --out $R/check-on.json > $R/check-on.log 2>&1; tail -n 1 $R/check-on.log
./fb-off check --no-long --filter '^gsa/' --out $R/check-off.json > $R/check-off.log 2>&1; tail -n 1 $R/check-off.log
date
cd $OUT && tar -cJf dq.tar.xz dq && rm -rf dq
