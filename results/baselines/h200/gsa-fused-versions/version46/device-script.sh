#!/bin/bash
# gsa version 46: fp32's query gradients (the scans' backward's dq) on the tensor cores in 3xTF32; one binary,
# FLA_AB_OLD=1 the CUDA-core products as before
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/version46; mkdir -p $R; cp run-gsa46.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
cuobjdump --dump-resource-usage fb 2>/dev/null | grep -A1 "query_grads_kernel" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | c++filt | sort -u > $R/resources.txt; cat $R/resources.txt
./fb check --no-long --filter '/gsa/fused_recurrent/' --out $R/check-new.json > $R/check-new.log 2>&1; tail -n2 $R/check-new.log; grep FAIL $R/check-new.log | head
./fb-old check --no-long --filter '/gsa/fused_recurrent/' --out $R/check-old.json > $R/check-old.log 2>&1; tail -n1 $R/check-old.log
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^gsa/fused_recurrent/fwdbwd/fp32/|^gla/fused_recurrent/fwdbwd/fp32/B8-T1024' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same\|geomean" $R/ab/rounds.txt | head -20
grep -h "fwdbwd/fp32/B8-T1024" $R/ab/r*-new.log $R/ab/r*-base.log
date
./fb profile --filter '^gsa/fused_recurrent/fwdbwd/fp32/B8-T1024' --preset peer --no-check --out $R/profile.json > $R/profile.log 2>&1; grep query_grads $R/profile.log
