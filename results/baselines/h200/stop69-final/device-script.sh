#!/bin/bash
# stop 69's final build (chunk v53: 3xTF32; fused_recurrent v78 / gsa v47: the fp32 backward rules): the whole
# battery, the CLI tests beside fla-bench on the GPU, gsa's and gla's fused_recurrent on the peer shapes in
# every dtype (issue 10's per-token target), and a profile of gsa's and gla's fp32 fused fwd+bwd at 1,24576,16,64
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; xz -dc flabench_cli_tests.xz > cli-tests; chmod +x cli-tests
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop69-final; mkdir -p $R
cp run-final.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
date
./fb check --out $R/check-all.json > $R/check-all.log 2>&1; tail -n2 $R/check-all.log
grep FAIL $R/check-all.log | head
date
FLA_BENCH_BINARY=$PWD/fb ./cli-tests > $R/gpu-cli-tests.log 2>&1; tail -n3 $R/gpu-cli-tests.log
date
timeout 200 ./fb --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --no-check --out $R/gsa-gla-peer.json > $R/gsa-gla-peer.log 2>&1; tail -n1 $R/gsa-gla-peer.log
date
./fb profile --filter '^(gsa|gla)/fused_recurrent/fwdbwd/fp32/B1-T24576' --preset peer --out $R/profile-gsa-gla-fp32.json > $R/profile-gsa-gla-fp32.log 2>&1; tail -n1 $R/profile-gsa-gla-fp32.log
date
cd $OUT && tar -cJf stop69-final.tar.xz stop69-final && rm -rf stop69-final
