#!/bin/bash
# experiment v71 (c): gsa's passes and the saving forwards with 8 warps a block at 8 keys (FLA_EXP_W8=1), and converters (2)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
for e in 0 1 2; do printf '#!/bin/bash\nFLA_EXP_W8=%s exec %s/fb "$@"\n' $e $PWD > fb-$e; chmod +x fb-$e; done
R=$OUT/v71c; mkdir -p $R
P=B8_T1024_H8_D64,B4_T4096_H16_D64
F='^gsa/fused_recurrent/(fwd|fwdbwd)/bf16|^(gla|rwkv6)/fused_recurrent/fwdbwd/bf16'
date
bash ../scripts/ab-rounds.sh ./fb-0 ./fb-2 $R/ab2 2 --filter "$F" --preset $P --no-check --min-time 0.1 --min-samples 5 > $R/ab2.out 2>&1
tail -16 $R/ab2/rounds.txt
date
bash ../scripts/ab-rounds.sh ./fb-0 ./fb-1 $R/ab1 1 --filter "$F" --preset $P --no-check --min-time 0.1 --min-samples 5 > $R/ab1.out 2>&1
tail -14 $R/ab1/rounds.txt
./fb-2 --filter '^gsa/fused_recurrent/' --preset $P --min-time 0.02 --out $R/gsa-checked-2.json > $R/gsa-checked-2.log 2>&1; tail -2 $R/gsa-checked-2.log
date
cd $OUT && tar -cJf v71c.tar.xz v71c && rm -rf v71c
