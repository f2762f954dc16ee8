#!/bin/bash
# stop 71: A/B of gsa's pipelined forward with each pass's blocks kept on SMs of their own by shared memory
# (FLA_AB_SM_EACH: half an SM's room a block), gsa's fused fwd and fwd+bwd on the peer shapes, every dtype,
# two rounds each way; the passes' registers; a profile timeline with the switch on
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop71-sm-each; mkdir -p $R
cp run-s71b.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*KeysForm\|fused_recurrent_fwd_kernelIN8flabench7GlaForm' | grep -o 'Function [^:]*:\|REG:[0-9]*\|SHARED:[0-9]*' | paste - - - > $R/registers.txt 2>&1; wc -l $R/registers.txt
date
F='^gsa/fused_recurrent/(fwd|fwdbwd)/'
for round in 1 2; do
  ./fb --filter "$F" --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/base-$round.json > $R/base-$round.log 2>&1; tail -n1 $R/base-$round.log
  FLA_AB_SM_EACH=1 ./fb --filter "$F" --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/each-$round.json > $R/each-$round.log 2>&1; tail -n1 $R/each-$round.log
  date
done
FLA_AB_SM_EACH=1 ./fb check --filter 'gsa/fused_recurrent/' --out $R/check-each.json > $R/check-each.log 2>&1; tail -n2 $R/check-each.log
FLA_AB_SM_EACH=1 ./fb profile --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/bf16/B1-T24576' --preset peer --out $R/profile-each.json > $R/profile-each.log 2>&1; tail -n1 $R/profile-each.log
date
cd $OUT && tar -cJf stop71-sm-each.tar.xz stop71-sm-each && rm -rf stop71-sm-each
