#!/bin/bash
# gsa version 39: the pipelined forward's passes at 4 keys a lane in blocks of 8 scanning warps (64 blocks a
# pass, so the two passes' blocks hold disjoint SMs); FLA_EXP_OLD=1: 4 warps, as version 38
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_EXP_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v39; mkdir -p $R
date
timeout 100 ./fb check --filter 'gsa/fused_recurrent/' --out $R/check-gsa-fused.json > $R/check-gsa-fused.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa-fused.log
grep -E " failed| FAILED|error" $R/check-gsa-fused.log | head -10
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 3 --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/' --preset B1_T24576_H16_D64 --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -A12 "^case" $R/ab/rounds.txt; tail -4 $R/ab/rounds.txt
date
for b in fb fb-old; do timeout 120 ./$b profile --no-check --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/(bf16|fp16)' --preset B1_T24576_H16_D64 --metrics dram__bytes_read.sum --out $R/profile-$b.json > $R/profile-$b.log 2>&1; echo "profile $b rc=$?"; done
grep -v "^ *counters" $R/profile-fb.log | grep -E 'gsa/|fwd_kernel|softmax' | head -40
date
cd $OUT && tar -cJf v39.tar.xz v39 && rm -rf v39
