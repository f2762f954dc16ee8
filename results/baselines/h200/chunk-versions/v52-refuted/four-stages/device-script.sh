#!/bin/bash
# chunk version 52 (b): the scan's ring at four stages (dynamic shared memory) where every block has an SM of
# its own (few heads), all dtypes; one binary: FLA_AB_STAGES=old the stage counts of version 51 (and the
# keys' second part written in the fused backwards), FLA_AB_STAGES=6 six stages at few heads
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_STAGES=old exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
printf '#!/bin/bash\nFLA_AB_STAGES=6 exec %s/fb "$@"\n' $PWD > fb-6; chmod +x fb-6
R=$OUT/v52b; mkdir -p $R
cp run-v52b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
cuobjdump --dump-resource-usage fb 2>/dev/null | grep -A1 "chunk_scan_kernel" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*\|SHARED:[0-9]*" | paste - - - - - | c++filt | sort -u > $R/resources.txt; cat $R/resources.txt
date
./fb check --no-long --filter '/(gla|rwkv6|simple_gla|gsa)/' --out $R/check-new.json > $R/check-new.log 2>&1; tail -n2 $R/check-new.log
grep FAIL $R/check-new.log | head
date
./fb-6 check --no-long --filter '^(accuracy|state|shapes|decay)/(gla|rwkv6|simple_gla|gsa)/' --out $R/check-6.json > $R/check-6.log 2>&1; tail -n2 $R/check-6.log
date
for b in fb fb-old fb-6; do ./$b profile --filter '^(gla|simple_gla)/chunk/fwd/(bf16|fp32)/B1-T24576-H16-K64-V64/C64$' --preset peer --no-check --out $R/profile-$b.json > $R/profile-$b.log 2>&1; grep "scan" $R/profile-$b.log; done
date
F='^(gla|rwkv6|simple_gla|gsa)/chunk/(fwd|fwdbwd)/.*/B1-T24576.*/C64$|^(gla|rwkv6|simple_gla|gsa)/fused_recurrent/fwdbwd/.*/B1-T24576'
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab4 2 --filter "$F" --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab4.out 2>&1
grep -i "faster\|slower\|same\|geomean" $R/ab4/rounds.txt | head -60
date
bash ../scripts/ab-rounds.sh ./fb ./fb-6 $R/ab6 2 --filter "$F" --axis dtype=bf16 --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab6.out 2>&1
grep -i "faster\|slower\|same\|geomean" $R/ab6/rounds.txt | head -30
date
cd $OUT && tar -cJf v52b.tar.xz v52b && rm -rf v52b
