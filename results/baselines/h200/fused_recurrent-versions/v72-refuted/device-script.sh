#!/bin/bash
# experiment v72: converter warps for rwkv7's bf16 forward at 16 keys a lane with wide chunks, a one-slot ring (FLA_EXP_RING1)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
printf '#!/bin/bash\nexec %s/fb "$@"\n' $PWD > fb-off; printf '#!/bin/bash\nFLA_EXP_RING1=1 exec %s/fb "$@"\n' $PWD > fb-on; chmod +x fb-off fb-on
R=$OUT/v72; mkdir -p $R
cuobjdump --dump-resource-usage fb 2>&1 | grep -A1 "fwd_kernel" | grep -o "Function [^:]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | awk '{print $2, $3, $4, $5}' | c++filt | sed 's/flabench:://g; s/fused:://g; s/(Pointers.*)//' | grep "Rwkv7Form, __nv_bfloat16, 16" > $R/resources.txt 2>&1; cat $R/resources.txt
date
bash ../scripts/ab-rounds.sh ./fb-off ./fb-on $R/ab 2 --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer,B1_T8192_H16_D128 --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
tail -20 $R/ab/rounds.txt
date
./fb-on check --no-long --filter 'rwkv7/fused_recurrent' --out $R/check-on.json > $R/check-on.log 2>&1; tail -1 $R/check-on.log
./fb-off check --no-long --filter 'rwkv7/fused_recurrent' --out $R/check-off.json > $R/check-off.log 2>&1; tail -1 $R/check-off.log
./fb-on --filter '^rwkv7/fused_recurrent/' --preset B2_T16384_H16_D128 --min-time 0.02 --out $R/peer-checked-on.json > $R/peer-checked-on.log 2>&1; tail -1 $R/peer-checked-on.log
date
FLA_EXP_RING1=1 compute-sanitizer --tool memcheck ./fb --filter '^rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16' --axis B=1 --axis T=1,100,4100 --axis H=2 --axis D=128 --profile-once --no-check > $R/memcheck.log 2>&1; tail -3 $R/memcheck.log
FLA_EXP_RING1=1 compute-sanitizer --tool racecheck ./fb --filter '^rwkv7/fused_recurrent/fwd/bf16' --axis B=1 --axis T=100 --axis H=2 --axis D=128 --profile-once --no-check > $R/racecheck.log 2>&1; tail -3 $R/racecheck.log
date
cd $OUT && tar -cJf v72.tar.xz v72 && rm -rf v72
