#!/usr/bin/env bash
# stop 58 final (fused v63 with the fp32 rule, build of the commit after 18b9389): fp32 fwd+bwd of gla, simple_gla,
# rwkv6 fused_recurrent on the peer shapes (checked), and the battery's fp32 cases of those three
B=/tmp/b4; mkdir -p $B; cp -r build-part/lib $B/; xz -dc build-part/fla-bench.xz > $B/fla-bench; chmod +x $B/fla-bench
export LD_LIBRARY_PATH=$B/lib
cd $OUT
timeout 90 $B/fla-bench --filter '^(rwkv6|gla|simple_gla)/fused_recurrent/fwdbwd/fp32' --min-time 0.2 --min-samples 5 --out $OUT/fused-fp32.json > $OUT/fused-fp32.log 2>&1; echo "fp32 rc $?"; tail -2 $OUT/fused-fp32.log | head -1; grep -E "^(rwkv6|gla|simple_gla)/" $OUT/fused-fp32.log | awk '{print $1, $2, $3}'
timeout 60 $B/fla-bench check --no-long --filter '/(gla|simple_gla|rwkv6)/fused_recurrent/fwdbwd/fp32/' --out $OUT/check-fp32.json > $OUT/check-fp32.log 2>&1; echo "check rc $?"; tail -2 $OUT/check-fp32.log | head -1
