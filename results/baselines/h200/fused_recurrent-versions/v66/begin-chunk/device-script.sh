cd build-part
xz -dc fla-bench.xz > fb && chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/r
./fb check --no-long --filter '/fused_recurrent/|rwkv7' --out /tmp/r/check.json > /tmp/r/check.log 2>&1; echo "check rc=$?"; tail -1 /tmp/r/check.log
./fb --filter '^(rwkv7|gla)/fused_recurrent/fwd/bf16|^rwkv7/fused_recurrent/fwdbwd/fp32' --preset peer --no-check --min-time 0.2 --min-samples 5 --out /tmp/r/fwd.json > /tmp/r/fwd.log 2>&1; grep -E "fused" /tmp/r/fwd.log | cut -c1-80
tar -C /tmp -cJf $OUT/r.tar.xz r
