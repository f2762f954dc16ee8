#!/bin/bash
# chunk version 52: bf16's scan with its two parts in accumulators of their own (four chains), and the fused
# backwards' prepare kernel skipping the keys' second part no scan reads; one binary, FLA_AB_OLD=1 both as
# version 51 had them
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nFLA_AB_OLD=1 exec %s/fb "$@"\n' $PWD > fb-old; chmod +x fb-old
R=$OUT/v52; mkdir -p $R
cp run-v52.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
cuobjdump --dump-resource-usage fb 2>/dev/null | grep -A1 "chunk_scan_kernel\|chunk_prepare_kernel" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | c++filt > $R/resources.txt; grep -i "scan" $R/resources.txt
date
./fb check --no-long --filter '/(gla|rwkv6|simple_gla|gsa)/' --out $R/check-new.json > $R/check-new.log 2>&1; tail -n2 $R/check-new.log
grep FAIL $R/check-new.log | head
date
./fb-old check --no-long --filter '^(accuracy|state|shapes|decay)/(gla|rwkv6|gsa)/' --out $R/check-old.json > $R/check-old.log 2>&1; tail -n2 $R/check-old.log
date
for b in fb fb-old; do ./$b profile --filter '^(gla|rwkv6)/chunk/fwdbwd/bf16/B1-T24576-H16-K64-V64/C64$|^gla/fused_recurrent/fwdbwd/bf16/B4-T4096-H16-K128' --preset peer --no-check --out $R/profile-$b.json > $R/profile-$b.log 2>&1; done
date
bash ../scripts/ab-rounds.sh ./fb-old ./fb $R/ab 2 --filter '^(gla|rwkv6|gsa)/chunk/(fwd|fwdbwd)/bf16/.*/C64$|^(gla|rwkv6|simple_gla|gsa)/fused_recurrent/fwdbwd/bf16/' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -i "faster\|slower\|same\|geomean" $R/ab/rounds.txt | head -60
date
# rwkv7's plain forward at 2,16384,16,128 (16 keys and one column a lane; unchanged here): ncu's source page
timeout 150 ncu --set full --import-source yes -k regex:fused_recurrent_fwd --launch-count 1 -o /tmp/fwd16 ./fb --filter '^rwkv7/fused_recurrent/fwd/bf16/B2-T16384-H16-K128' --preset peer --profile-once --no-check --out /tmp/j.json > $R/ncu-rwkv7-fwd.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/fwd16.ncu-rep --page details > $R/ncu-rwkv7-fwd-details.txt 2>&1
ncu --import /tmp/fwd16.ncu-rep --page source --csv --print-source sass > $R/ncu-rwkv7-fwd-source.csv 2>&1; gzip -9 $R/ncu-rwkv7-fwd-source.csv
date
cd $OUT && tar -cJf v52.tar.xz v52 && rm -rf v52
