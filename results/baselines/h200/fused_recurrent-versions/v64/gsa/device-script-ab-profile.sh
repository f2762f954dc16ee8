cd build-part
xz -dc fla-bench-base.xz > fb-base && xz -dc fla-bench.xz > fb-new && chmod +x fb-base fb-new
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/ab
bash ../scripts/ab-rounds.sh ./fb-base ./fb-new /tmp/ab 2 --filter '^gsa/fused_recurrent/fwd/bf16' --preset peer --no-check --min-time 0.2 --min-samples 5
cp /tmp/ab/rounds.txt $OUT/; tar -C /tmp -cJf $OUT/ab-runs.tar.xz ab
grep -A12 "^case" $OUT/rounds.txt | head -14; tail -4 $OUT/rounds.txt
./fb-new profile --filter '^gsa/fused_recurrent/fwd/bf16/B1-T24576' --preset peer --no-check --min-time 0.1 --min-samples 3 > $OUT/profile-new.log 2>&1
./fb-base profile --filter '^gsa/fused_recurrent/fwd/bf16/B1-T24576' --preset peer --no-check --min-time 0.1 --min-samples 3 > $OUT/profile-base.log 2>&1
grep -E "ms|kernel" $OUT/profile-new.log | tail -12; grep -E "ms|kernel" $OUT/profile-base.log | tail -12
