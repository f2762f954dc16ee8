#!/bin/bash
# gsa version 39 (b): the pipelined forward's segment count at 1,24576,16,64 (FLA_EXP_SEGMENTS), blocks of 8
# scanning warps (FLA_EXP_OLD=1: 4); and gla's fused forward at T = 1536..24576 (a launch's fixed cost)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/v39b; mkdir -p $R
date
./fb run --no-check --filter '^gla/fused_recurrent/fwd/(bf16|fp16)' --axis B=1 --axis H=16 --axis D=64 --axis T=1536,3072,6144,12288,24576 --min-time 0.2 --min-samples 5 --out $R/gla-T.json > $R/gla-T.log 2>&1; grep -E '^gla' $R/gla-T.log
for round in 1 2; do
for n in 4 6 8 12 16; do
  FLA_EXP_SEGMENTS=$n ./fb run --no-check --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/' --preset B1_T24576_H16_D64 --min-time 0.2 --min-samples 5 --out $R/r$round-s$n.json > $R/r$round-s$n.log 2>&1
  echo "round $round segments $n"; grep -E '^gsa' $R/r$round-s$n.log | awk '{print "  " $1, $2}'
done
FLA_EXP_OLD=1 FLA_EXP_SEGMENTS=8 ./fb run --no-check --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/' --preset B1_T24576_H16_D64 --min-time 0.2 --min-samples 5 --out $R/r$round-old-s8.json > $R/r$round-old-s8.log 2>&1
echo "round $round W4 segments 8"; grep -E '^gsa' $R/r$round-old-s8.log | awk '{print "  " $1, $2}'
done
date
for n in 8 16; do FLA_EXP_SEGMENTS=$n timeout 120 ./fb profile --no-check --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/(fp16|fp32)' --preset B1_T24576_H16_D64 --metrics dram__bytes_read.sum --out $R/profile-s$n.json > $R/profile-s$n.log 2>&1; echo "profile $n rc=$?"; done
date
cd $OUT && tar -cJf v39b.tar.xz v39b && rm -rf v39b
