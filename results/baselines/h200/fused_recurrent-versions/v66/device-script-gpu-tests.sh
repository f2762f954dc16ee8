cd build-part
xz -dc flabench_tests.xz > ft && chmod +x ft
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p $OUT
timeout 280 ./ft --gtest_filter='*Workspace*:*CudaVariant*' > $OUT/gpu-tests.log 2>&1; echo "tests rc=$?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|worst rms" $OUT/gpu-tests.log | head -40
