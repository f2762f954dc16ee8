cd build-part
xz -dc fla-bench.xz > fb && chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/r
./fb --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/' --min-time 0.2 --min-samples 5 --out /tmp/r/fused_recurrent.json > /tmp/r/fused_recurrent.log 2>&1; echo "table rc=$?"; grep -E "rwkv7/fused_recurrent/(fwd|fwdbwd)/bf16|cases" /tmp/r/fused_recurrent.log | cut -c1-120
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out /tmp/r/check.json > /tmp/r/check.log 2>&1; echo "check rc=$?"; tail -1 /tmp/r/check.log
./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(4-T4096-H16-K128|8-T1024)' --preset peer --no-check --min-time 0.1 --min-samples 3 > /tmp/r/profile-fwdbwd.log 2>&1
grep -E "ms|kernel|%" /tmp/r/profile-fwdbwd.log | cut -c1-150 | head -40
tar -C /tmp -cJf $OUT/r.tar.xz r
