#!/bin/bash
# fused_recurrent version 76 (A/B): rwkv7's forward at 16 keys and one column a lane (2,16384,16,128) at two
# columns a lane in blocks of 4 warps (one warp a scheduler); one binary, FLA_AB_CPL2=1 the new layout
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_CPL2=1 exec %s/fb "$@"\n' $PWD > fb-new; chmod +x fb-new
R=$OUT/v76; mkdir -p $R
cp run-v76.sh $R/device-script.sh
date
./fb-new check --no-long --filter 'rwkv7/(fused_recurrent|naive~fused)' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep -q ' 0 failed' $R/check.log || { grep FAIL $R/check.log | head; cd $OUT && tar -cJf v76.tar.xz v76; exit 1; }
date
bash ../scripts/ab-rounds.sh ./fb ./fb-new $R/ab 2 --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/.*/B2-T16384' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same" $R/ab/rounds.txt | head -20
date
cd $OUT && tar -cJf v76.tar.xz v76 && rm -rf v76
