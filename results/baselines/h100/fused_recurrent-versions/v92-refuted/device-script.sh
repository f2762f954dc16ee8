#!/bin/bash
# stop 81: fused_recurrent version 92 candidate: the column passes' conversion reads every key vector of
# its eight keys before it stores any (RawEight), behind FLA_AB_READS=1 (a run-time flag in the geometry:
# both orders in one binary). version 90's ncu put the conversion's stalls on each 16-byte store waiting for
# the read before it, the next read held behind that store. Battery with it on, two A/B rounds over the four
# ops' fused bf16 fwd and fwd+bwd at the peer shapes, issue 3's table with it on.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s81e; mkdir -p $R
cp run-s81e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s81e.tar.xz s81e); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7.*bfloat16Li16' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
FLA_AB_READS=1 timeout 150 ./fb check --filter '/fused_recurrent/' --out $R/check-reads.json > $R/check-reads.log 2>&1; tail -n2 $R/check-reads.log
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^(gla|rwkv6|simple_gla|rwkv7)/fused_recurrent/(fwd|fwdbwd)/bf16'
for round in 1 2; do
  ./fb --filter "$F" $O --out $R/base-$round.json > $R/base-$round.log 2>&1; grep "rwkv7/fused_recurrent/fwd/bf16/B2-T16384" $R/base-$round.log
  FLA_AB_READS=1 ./fb --filter "$F" $O --out $R/reads-$round.json > $R/reads-$round.log 2>&1; grep "rwkv7/fused_recurrent/fwd/bf16/B2-T16384" $R/reads-$round.log
  pack
done
./fb compare --rounds $R/base-1.json $R/reads-1.json $R/base-2.json $R/reads-2.json > $R/ab.txt 2>&1; grep -E "^rwkv7|geomean|slower|faster" $R/ab.txt | head -30
pack; date
