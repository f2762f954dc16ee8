#!/bin/bash
# fused_recurrent version 75: the forward of rwkv7 and rwkv6 at 8 keys a lane in blocks of 8 warps where each
# block then has an SM (layout.h eight_warp_forward); one binary, FLA_AB_OLD=1 the 4-warp blocks as before
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v75; mkdir -p $R
cp run-v75.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
date
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep -q ' 0 failed' $R/check.log || { grep FAIL $R/check.log | head; cd $OUT && tar -cJf v75.tar.xz v75; exit 1; }
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^(rwkv7|rwkv6|gla)/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same" $R/ab/rounds.txt | head -40
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab-16-32 1 --filter '^(rwkv7|rwkv6)/fused_recurrent/(fwd|fwdbwd)/(fp16|fp32)' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab-16-32.out 2>&1
grep -i "faster\|slower\|same" $R/ab-16-32/rounds.txt | head -40
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16' --preset peer > $R/profile-fwdbwd.log 2>&1; tail -n 3 $R/profile-fwdbwd.log
date
cd $OUT && tar -cJf v75.tar.xz v75 && rm -rf v75
