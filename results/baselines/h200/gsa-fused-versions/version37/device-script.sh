#!/bin/bash
# gsa version 36b (fp16's dq pass on the tensor cores from the balanced dz in fp32) and version 37 (the
# fused forward's segments from T = 1024; FLA_GSA_OLD_SEGMENTS=1: the rule before)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_GSA_OLD_SEGMENTS=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v37; mkdir -p $R
date
timeout 150 ./fb check --filter gsa/ --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n2 $R/check-gsa.log
grep -E " failed| FAILED|error" $R/check-gsa.log | head -10
python3 ../scripts/check-error-compare.py check-gsa-v34.json $R/check-gsa.json > $R/check-errors-vs-v34.txt 2>&1; head -5 $R/check-errors-vs-v34.txt; grep fp16 $R/check-errors-vs-v34.txt | grep "<--"
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab-segments 3 --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/' --preset B8_T1024_H8_D64 --no-check --min-time 0.2 --min-samples 5 > $R/ab-segments.out 2>&1
grep -A8 "^case" $R/ab-segments/rounds.txt | head -10; tail -4 $R/ab-segments/rounds.txt
date
timeout 200 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; grep -E "cases" $R/gsa-gla-peer.log
date
timeout 60 ./fb --filter '^gsa/chunk/fwdbwd/fp16' --preset peer --min-time 0.2 --min-samples 5 --out $R/gsa-chunk-fp16-peer.json > $R/gsa-chunk-fp16-peer.log 2>&1; grep -E "^gsa|cases" $R/gsa-chunk-fp16-peer.log | cut -c1-100
timeout 60 ./fb profile --filter '^gsa/fused_recurrent/fwdbwd/fp16' --preset B1_T24576_H16_D64 --no-check --min-time 0.2 --min-samples 3 > $R/profile-gsa-fp16-1-24576.log 2>&1; grep -E "chunk_output|logit_grads" $R/profile-gsa-fp16-1-24576.log | cut -c1-130
cd $OUT && tar -cJf v37.tar.xz v37 && rm -rf v37
