#!/bin/bash
# gsa version 44: the passes' reverse scans take their queries (p, dz) in fp32; one binary, FLA_AB_OLD=1 the
# 16-bit queries as before
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/g44; mkdir -p $R
cp run-g44.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
date
./fb check --filter '/gsa/' --out $R/check-new.json > $R/check-new.log 2>&1; tail -n2 $R/check-new.log
grep FAIL $R/check-new.log | head
./fb-old check --filter '/gsa/' --out $R/check-old.json > $R/check-old.log 2>&1; tail -n2 $R/check-old.log
date
timeout 120 compute-sanitizer --tool memcheck ./fb check --no-isolate --no-long --filter '^(accuracy|state)/gsa/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)/' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -n3 $R/memcheck.log
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^gsa/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)/' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same\|geomean" $R/ab/rounds.txt | head -60
date
cd $OUT && tar -cJf g44.tar.xz g44 && rm -rf g44
