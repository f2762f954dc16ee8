#!/bin/bash
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/dbg; mkdir -p $R
FLA_AB_OLD=1 ./fb check --no-long --filter '^shapes/(gla|rwkv7)/fused_recurrent/fwdbwd/fp32/B1-T(1|16|17)-H2-K64-V64' --out $R/old.json > $R/old.log 2>&1; tail -n 12 $R/old.log
./fb check --no-long --filter '^shapes/(gla|rwkv7)/fused_recurrent/fwdbwd/fp32/B1-T(1|16|17)-H2-K64-V64' --out $R/new.json > $R/new.log 2>&1; tail -n 12 $R/new.log
cuobjdump -sass -fun '_ZN8flabench5fused26fused_recurrent_fwd_kernelINS_7GlaFormEfLi4ELi1ELb0ELb1EEEvNS_8PointersIT0_EENS0_8GeometryENS0_9StagePlanEPfS8_' fb > $R/sass-gla-f32-4-1-conv.txt 2>&1; wc -l $R/sass-gla-f32-4-1-conv.txt
cuobjdump -sass -fun '_ZN8flabench5fused26fused_recurrent_fwd_kernelINS_7GlaFormEfLi8ELi1ELb0ELb0EEEvNS_8PointersIT0_EENS0_8GeometryENS0_9StagePlanEPfS8_' fb > $R/sass-gla-f32-8-1.txt 2>&1; wc -l $R/sass-gla-f32-8-1.txt
cd $OUT && tar -cJf dbg.tar.xz dbg && rm -rf dbg
