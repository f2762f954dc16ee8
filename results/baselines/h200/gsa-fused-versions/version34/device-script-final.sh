cd build-part
xz -dc fla-bench.xz > fb-new && xz -dc flabench_tests.xz > ft && chmod +x fb-new ft
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/r
./fb-new --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --min-time 0.2 --min-samples 5 --out /tmp/r/gsa-fused.json > /tmp/r/gsa-fused.log 2>&1; grep -E "gsa|gla|cases" /tmp/r/gsa-fused.log | cut -c1-140
FLA_BENCH_BINARY=$PWD/fb-new timeout 150 ./ft --gtest_filter='*Workspace*:*CudaVariant*gsa*' > /tmp/r/gpu-tests-gsa.log 2>&1; echo "tests rc=$?"; grep -E "PASSED|FAILED|SKIPPED" /tmp/r/gpu-tests-gsa.log | head -20
timeout 240 compute-sanitizer --tool memcheck ./fb-new check --no-isolate --no-long --filter '/gsa/fused_recurrent/fwdbwd/(bf16|fp32)/' --out /tmp/r/check-gsa-fused-memcheck.json > /tmp/r/check-gsa-fused-memcheck.log 2>&1; echo "memcheck rc=$?"; tail -12 /tmp/r/check-gsa-fused-memcheck.log
tar -C /tmp -cJf $OUT/r.tar.xz r
