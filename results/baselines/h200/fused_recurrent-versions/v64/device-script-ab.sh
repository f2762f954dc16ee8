cd build-part
xz -dc fla-bench-base.xz > fb-base && xz -dc fla-bench.xz > fb-new && chmod +x fb-base fb-new
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/ab
bash ../scripts/ab-rounds.sh ./fb-base ./fb-new /tmp/ab 2 --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --no-check --min-time 0.2 --min-samples 5
cp /tmp/ab/rounds.txt $OUT/; tar -C /tmp -cJf $OUT/ab-runs.tar.xz ab
tail -60 $OUT/rounds.txt
