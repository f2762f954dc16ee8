#!/bin/bash
# gsa version 45 candidate: the fp32 fused fwd+bwd's backward in chunk form at every size (the rule of version
# 34, measured at stop 60, kept the scans' backward at 2^19 state elements and more); FLA_AB_CHUNK_FP32=1 the
# chunk form everywhere
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_CHUNK_FP32=1 exec %s/fb "$@"\n' $PWD > fb-chunk; chmod +x fb-chunk
R=$OUT/g45; mkdir -p $R
cp run-g45.sh $R/device-script.sh
./fb-chunk check --no-long --filter '/gsa/fused_recurrent/fwdbwd/fp32/' --out $R/check-chunk.json > $R/check-chunk.log 2>&1; tail -n1 $R/check-chunk.log
bash ../scripts/ab-rounds.sh ./fb ./fb-chunk $R/ab 2 --filter '^(gsa|gla)/fused_recurrent/fwdbwd/fp32/' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same\|geomean" $R/ab/rounds.txt | head -20
cd $OUT && tar -cJf g45.tar.xz g45 && rm -rf g45
