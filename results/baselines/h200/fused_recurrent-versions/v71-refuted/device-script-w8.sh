#!/bin/bash
# experiment v71: 8 scanning warps a block at 8 keys a lane where each block then has an SM (FLA_EXP_W8=1), and
# with converter warps (FLA_EXP_W8=2), one binary
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
for e in 0 1 2; do printf '#!/bin/bash\nFLA_EXP_W8=%s exec %s/fb "$@"\n' $e $PWD > fb-$e; chmod +x fb-$e; done
R=$OUT/v71; mkdir -p $R
cuobjdump --dump-resource-usage fb 2>&1 | grep -A1 "fwd_kernel" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | awk '{print $2, $3, $4, $5}' | c++filt | sed 's/flabench:://g; s/fused:://g; s/(Pointers.*)//' | grep -v "^$" > $R/resources.txt 2>&1
date
./fb-2 check --no-long --filter '/fused_recurrent/' --out $R/check-2.json > $R/check-2.log 2>&1; tail -1 $R/check-2.log
date
F='^(rwkv7|gla|rwkv6|simple_gla)/fused_recurrent/fwd/bf16|^rwkv7/fused_recurrent/fwdbwd/bf16'
bash ../scripts/ab-rounds.sh ./fb-0 ./fb-2 $R/ab2 2 --filter "$F" --preset peer --no-check --min-time 0.1 --min-samples 5 > $R/ab2.out 2>&1
tail -40 $R/ab2/rounds.txt
date
bash ../scripts/ab-rounds.sh ./fb-0 ./fb-1 $R/ab1 1 --filter "$F" --preset B8_T1024_H8_D64,B4_T4096_H16_D64 --no-check --min-time 0.1 --min-samples 5 > $R/ab1.out 2>&1
tail -30 $R/ab1/rounds.txt
date
./fb-2 --filter '^rwkv7/fused_recurrent/' --preset B8_T1024_H8_D64,B4_T4096_H16_D64 --min-time 0.02 --out $R/peer-checked-2.json > $R/peer-checked-2.log 2>&1; tail -3 $R/peer-checked-2.log
date
cd $OUT && tar -cJf v71.tar.xz v71 && rm -rf v71
