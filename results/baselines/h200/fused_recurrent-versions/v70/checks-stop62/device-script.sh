#!/bin/bash
# stop 62's checks of the committed build: memcheck and racecheck of version 70's converter path (gla, rwkv6,
# simple_gla, gsa), and gsa against gla at 1,24576,16,64 in fp16 and fp32 (issue 10's fused target)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/s62; mkdir -p $R
./fb --version > $R/version.txt; date
compute-sanitizer --tool memcheck ./fb --filter '^(gla|rwkv6|simple_gla)/fused_recurrent/(fwd|fwdbwd)/(bf16|fp32)' --axis B=1 --axis T=1,100,4100 --axis H=2 --axis D=32,64 --profile-once --no-check > $R/memcheck-gla-family.log 2>&1; tail -n 3 $R/memcheck-gla-family.log
compute-sanitizer --tool memcheck ./fb --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/(bf16|fp32)' --axis B=1 --axis T=100,4100 --axis H=2 --axis D=64 --profile-once --no-check > $R/memcheck-gsa.log 2>&1; tail -n 3 $R/memcheck-gsa.log
date
compute-sanitizer --tool racecheck ./fb --filter '^(gla|rwkv6|simple_gla|gsa)/fused_recurrent/fwd/bf16' --axis B=1 --axis T=100 --axis H=2 --axis D=64 --profile-once --no-check > $R/racecheck.log 2>&1; tail -n 3 $R/racecheck.log
date
./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/(fp16|fp32)' --preset B1_T24576_H16_D64 --min-time 0.2 --min-samples 5 --out $R/gsa-gla-fp16-fp32.json > $R/gsa-gla-fp16-fp32.log 2>&1; tail -n 12 $R/gsa-gla-fp16-fp32.log
date
