#!/bin/bash
# experiment v71 (b): two columns a lane at 8 keys, 4 warps a block, where each block then has an SM, with
# converter warps (FLA_EXP_W8=3, bf16) or without (4); 1: 8 warps a block (one column), 0: as committed
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
for e in 0 1 3 4; do printf '#!/bin/bash\nFLA_EXP_W8=%s exec %s/fb "$@"\n' $e $PWD > fb-$e; chmod +x fb-$e; done
R=$OUT/v71b; mkdir -p $R
cuobjdump --dump-resource-usage fb 2>&1 | grep -A1 "fwd_kernel" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | awk '{print $2, $3, $4, $5}' | c++filt | sed 's/flabench:://g; s/fused:://g; s/(Pointers.*)//' | grep ", 8, 2" > $R/resources.txt 2>&1
P=B8_T1024_H8_D64,B4_T4096_H16_D64
date
for e in 3 4; do ./fb-$e --filter '^(rwkv7|gla|rwkv6|simple_gla)/fused_recurrent/' --preset $P --min-time 0.02 --out $R/peer-checked-$e.json > $R/peer-checked-$e.log 2>&1; tail -1 $R/peer-checked-$e.log; done
date
F='^(rwkv7|gla|rwkv6|simple_gla)/fused_recurrent/fwd/bf16|^rwkv7/fused_recurrent/fwdbwd/bf16|^rwkv7/fused_recurrent/fwd/'
bash ../scripts/ab-rounds.sh ./fb-0 ./fb-3 $R/ab3 2 --filter "$F" --preset $P --no-check --min-time 0.1 --min-samples 5 > $R/ab3.out 2>&1
tail -30 $R/ab3/rounds.txt
date
bash ../scripts/ab-rounds.sh ./fb-0 ./fb-4 $R/ab4 2 --filter "$F" --preset $P --no-check --min-time 0.1 --min-samples 5 > $R/ab4.out 2>&1
tail -30 $R/ab4/rounds.txt
date
bash ../scripts/ab-rounds.sh ./fb-1 ./fb-3 $R/ab13 1 --filter "$F" --preset $P --no-check --min-time 0.1 --min-samples 5 > $R/ab13.out 2>&1
tail -20 $R/ab13/rounds.txt
date
cd $OUT && tar -cJf v71b.tar.xz v71b && rm -rf v71b
