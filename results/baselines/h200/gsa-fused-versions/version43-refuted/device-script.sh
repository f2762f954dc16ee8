#!/bin/bash
# gsa fused_recurrent (A/B): its fwd+bwd's chunk-form backward in chunks of 64 instead of 32 (the forward's
# segments whole chunks of 64); one binary, FLA_AB_C64=1 the chunks of 64
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_C64=1 exec %s/fb "$@"\n' $PWD > fb-new; chmod +x fb-new
R=$OUT/c64; mkdir -p $R
cp run-v43g.sh $R/device-script.sh
date
./fb-new check --no-long --filter 'gsa/fused_recurrent' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep -q ' 0 failed' $R/check.log || { grep FAIL $R/check.log | head; cd $OUT && tar -cJf c64.tar.xz c64; exit 1; }
date
bash ../scripts/ab-rounds.sh ./fb ./fb-new $R/ab 2 --filter '^gsa/fused_recurrent/fwdbwd/(bf16|fp16)' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same" $R/ab/rounds.txt | head -20
date
./fb-new profile --filter '^gsa/fused_recurrent/fwdbwd/bf16/B8-T1024' --preset peer > $R/profile.log 2>&1; tail -n 2 $R/profile.log
cd $OUT && tar -cJf c64.tar.xz c64 && rm -rf c64
