#!/bin/bash
# rwkv7 chunk version 51 (A/B): the local gradients' wide kernels with K at compile time (64, 128); one
# binary, FLA_AB_OLD=1 the runtime-K kernels as before
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v51; mkdir -p $R
cp run-v77.sh $R/device-script.sh
cuobjdump --dump-resource-usage fb 2>&1 | grep -A1 'local_grads_mma' | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | awk '{print $2, $3, $4, $5}' | c++filt | sed 's/flabench:://g; s/rwkv7:://g; s/(Pointers.*)//' > $R/resources.txt 2>&1
cat $R/resources.txt
date
./fb check --no-long --filter 'rwkv7' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep -q ' 0 failed' $R/check.log || { grep FAIL $R/check.log | head; cd $OUT && tar -cJf v51.tar.xz v51; exit 1; }
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^rwkv7/(fused_recurrent|chunk)/fwdbwd/(bf16|fp16)' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same" $R/ab/rounds.txt | head -30
date
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16' --preset peer > $R/profile-fwdbwd.log 2>&1; tail -n 2 $R/profile-fwdbwd.log
cd $OUT && tar -cJf v51.tar.xz v51 && rm -rf v51
