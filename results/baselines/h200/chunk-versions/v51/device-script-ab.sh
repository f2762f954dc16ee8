#!/bin/bash
# chunk version 51: bf16's scan operand in two bf16 planes (the rounded value and what rounding left), the scans
# taking both; one binary, FLA_AB_OLD=1 the one-part operand (four stages) as before
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v51; mkdir -p $R
cp run-v51.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
date
./fb check --no-long --filter '/(gla|rwkv6|simple_gla|gsa)/' --out $R/check-new.json > $R/check-new.log 2>&1; tail -n2 $R/check-new.log
grep FAIL $R/check-new.log | head
date
./fb-old check --no-long --filter '^(accuracy|state|shapes|decay)/(gla|rwkv6|gsa)/' --out $R/check-old.json > $R/check-old.log 2>&1; tail -n2 $R/check-old.log
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^(gla|rwkv6|gsa)/chunk/(fwd|fwdbwd)/bf16/.*/C64$|^(gla|rwkv6|gsa)/fused_recurrent/fwdbwd/bf16/' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same\|geomean" $R/ab/rounds.txt | head -60
date
cd $OUT && tar -cJf v51.tar.xz v51 && rm -rf v51
