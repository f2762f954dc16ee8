#!/usr/bin/env bash
# stop 58: fused v63's saving forward with launch bounds of one block an SM at 16 keys (build of the HEAD commit)
# against the build before it (991eed9): two A/B rounds of the D = 128 fwd+bwd, every dtype, and the battery.
B=/tmp/b5; mkdir -p $B; cp -r build-part/lib $B/; for s in base ""; do n=fla-bench${s:+-$s}; xz -dc build-part/$n.xz > $B/$n; chmod +x $B/$n; done
export LD_LIBRARY_PATH=$B/lib
cd $OUT
timeout 100 $B/fla-bench check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; echo "check rc $?"; tail -2 $OUT/check.log | head -1; xz -9 $OUT/check.json
timeout 300 bash $OLDPWD/scripts/ab-rounds.sh $B/fla-bench-base $B/fla-bench $OUT/ab 2 --filter '^(gla|simple_gla|rwkv6|rwkv7)/fused_recurrent/fwdbwd/.*/B(4-T4096|2-T16384)-H16-K128' --no-check --min-time 0.2 --min-samples 5; echo "ab rc $?"
sed -n '/^case/,$p' $OUT/ab/rounds.txt | head -40
cd $OUT && tar cJf logs.tar.xz check.log ab && rm -rf check.log ab/*.log
