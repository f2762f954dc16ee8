#!/bin/bash
# version 67 experiment: rwkv7 forward read-ahead, one binary, FLA_EXP_AHEAD on/off
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nexec %s/fb "$@"\n' $PWD > fb-off; printf '#!/bin/bash\nFLA_EXP_AHEAD=1 exec %s/fb "$@"\n' $PWD > fb-on; chmod +x fb-off fb-on
R=$OUT/v67; mkdir -p $R
cuobjdump --dump-resource-usage fb 2>&1 | grep -A1 "Rwkv7Form" | grep -A1 fwd_kernel | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | awk '{print $2, $3, $4, $5}' | c++filt > $R/resources.txt 2>&1
date
./fb-on check --no-long --filter '/rwkv7/fused_recurrent/' --out $R/check-on.json > $R/check-on.log 2>&1; tail -2 $R/check-on.log
./fb-off check --no-long --filter '/rwkv7/fused_recurrent/' --out $R/check-off.json > $R/check-off.log 2>&1; tail -2 $R/check-off.log
date
bash ../scripts/ab-rounds.sh ./fb-off ./fb-on $R/ab 2 --filter '^rwkv7/fused_recurrent/' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
tail -45 $R/ab/rounds.txt
date
./fb-on --filter '^rwkv7/fused_recurrent/' --preset peer --min-time 0.05 --out $R/peer-checked-on.json > $R/peer-checked-on.log 2>&1; tail -3 $R/peer-checked-on.log
date
