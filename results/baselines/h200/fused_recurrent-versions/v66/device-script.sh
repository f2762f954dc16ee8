cd build-part
xz -dc fla-bench.xz > fb-new && chmod +x fb-new
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/r
./fb-new check --no-long --filter '/fused_recurrent/|rwkv7' --out /tmp/r/check-new.json > /tmp/r/check-new.log 2>&1; echo "check new rc=$?"; tail -1 /tmp/r/check-new.log
for r in 1 2; do ./fb-new --filter '^rwkv7/fused_recurrent/fwdbwd/(fp16|fp32)' --preset peer --no-check --min-time 0.2 --min-samples 5 --out /tmp/r/fwdbwd-r$r.json > /tmp/r/fwdbwd-r$r.log 2>&1; grep rwkv7 /tmp/r/fwdbwd-r$r.log | cut -c1-80; done
tar -C /tmp -cJf $OUT/r.tar.xz r
