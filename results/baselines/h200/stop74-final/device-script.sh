#!/bin/bash
# stop 74's last call: (1) fused_recurrent version 86's question, the room's saving instance under the plain
# forward's launch bound (0: ptxas's choice) instead of one block an SM, behind FLA_AB_BOUND0=1 in one binary
# (version 84's kernels otherwise: the switch adds an instance the default path never launches); (2) issue 3's
# table on that binary's default path (version 84).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s74d; mkdir -p $R
cp run-s74d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s74d.tar.xz s74d); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7.*Li16' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
F='^rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/B(2-T16384|4-T4096-H16-K128)'
O="--preset peer --min-time 0.2 --min-samples 5"
FLA_AB_BOUND0=1 timeout 60 ./fb check --filter 'rwkv7/fused_recurrent/fwdbwd/(bf16|fp16)/.*K128' --out $R/check-bound0.json > $R/check-bound0.log 2>&1; tail -n2 $R/check-bound0.log
for round in 1 2; do
  ./fb --filter "$F" $O --no-check --out $R/old-$round.json > $R/old-$round.log 2>&1; tail -n1 $R/old-$round.log
  FLA_AB_BOUND0=1 ./fb --filter "$F" $O --no-check --out $R/new-$round.json > $R/new-$round.log 2>&1; tail -n1 $R/new-$round.log
done
./fb compare --rounds $R/old-1.json $R/new-1.json $R/old-2.json $R/new-2.json > $R/ab.txt 2>&1
tail -n 8 $R/ab.txt
pack; date
./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $R/fused_recurrent.json > $R/fused_recurrent.log 2>&1; tail -n2 $R/fused_recurrent.log
pack; date
