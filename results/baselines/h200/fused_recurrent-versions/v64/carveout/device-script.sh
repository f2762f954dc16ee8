cd build-part
xz -dc fla-bench-base.xz > fb-base && xz -dc fla-bench.xz > fb-new && chmod +x fb-base fb-new
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/gsa /tmp/ops
bash ../scripts/ab-rounds.sh ./fb-base ./fb-new /tmp/gsa 2 --filter '^gsa/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --no-check --min-time 0.2 --min-samples 5 > /dev/null 2>&1
cp /tmp/gsa/rounds.txt $OUT/gsa-rounds.txt; grep -A11 "^case" $OUT/gsa-rounds.txt | head -12; tail -5 $OUT/gsa-rounds.txt | head -3
bash ../scripts/ab-rounds.sh ./fb-base ./fb-new /tmp/ops 1 --filter '^((rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/fwd/bf16|(gla|rwkv7)/fused_recurrent/fwdbwd/fp32)' --preset peer --no-check --min-time 0.2 --min-samples 5 > /dev/null 2>&1
cp /tmp/ops/rounds.txt $OUT/ops-rounds.txt; grep -A31 "^case" $OUT/ops-rounds.txt | head -32; tail -5 $OUT/ops-rounds.txt | head -3
tar -C /tmp -cJf $OUT/ab-runs.tar.xz gsa ops
