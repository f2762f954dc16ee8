cd build-part
xz -dc fla-bench.xz > fla-bench && xz -dc flabench_tests.xz > flabench_tests && chmod +x fla-bench flabench_tests
export LD_LIBRARY_PATH=$PWD/lib
./fla-bench --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out $OUT/fused_recurrent.json > $OUT/fused_recurrent.log 2>&1; tail -3 $OUT/fused_recurrent.log
FLA_BENCH_BINARY=$PWD/fla-bench timeout 150 ./flabench_tests --gtest_filter='*Workspace*:*CudaVariant*:*Profile*' > $OUT/gpu-tests.log 2>&1; tail -4 $OUT/gpu-tests.log
timeout 150 ./fla-bench --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --min-time 0.2 --min-samples 5 --out $OUT/gsa-fused.json > $OUT/gsa-fused.log 2>&1; tail -25 $OUT/gsa-fused.log
