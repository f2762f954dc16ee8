#!/bin/bash
# stop 69: compute-sanitizer memcheck of the fp32 chunk kernels since chunk v53 (3xTF32 reads its operands in
# m16n8k8's fragment order) and of the fused fp32 fwd+bwd that now take the chunk form at D = 128
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/m; mkdir -p $R; cp run-m.sh $R/device-script.sh
timeout 150 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-long --filter '^accuracy/(gla|rwkv6|simple_gla|gsa|rwkv7)/chunk/fwdbwd/fp32/B2-T65-H3-[^/]*/C(32|64)/|^shapes/(gla|gsa)/fused_recurrent/fwdbwd/fp32/B2-T37-H16-K128' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "rc $?"; tail -n 4 $R/memcheck.log; grep -c "Invalid\|ERROR SUMMARY" $R/memcheck.log
cd $OUT && tar cJf m.tar.xz m && rm -rf m
# then, on the same warm machine (two more calls, inline):
#   compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-long --filter '^[a-z]+/[a-z0-9_]+/chunk/[a-z]+/fp32/' --out memcheck-chunk-fp32.json   (594 cases: 575 ok, 0 failed, 19 skipped; 0 errors)
#   compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-long --filter '^[a-z]+/[a-z0-9_]+/fused_recurrent/fwdbwd/fp32/' --out memcheck-fused-fp32.json   (188 cases: 182 ok, 0 failed, 6 skipped; 0 errors)
