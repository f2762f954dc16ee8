#!/usr/bin/env bash
# stop 58, fused v63: A = the one-loop branch for rwkv7's form only (v62's), B = for every recurrence; both with the
# chunk-form backward for gla/simple_gla/rwkv6 in every dtype. Battery on B, then two A/B rounds of the fwd+bwd.
B=/tmp/b2; mkdir -p $B; cp -r build-part/lib $B/; for s in A B; do xz -dc build-part/fla-bench-$s.xz > $B/fla-bench-$s; chmod +x $B/fla-bench-$s; done
export LD_LIBRARY_PATH=$B/lib
cd $OUT
timeout 100 $B/fla-bench-B check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check-B.json > $OUT/check-B.log 2>&1; echo "check rc $?"; tail -2 $OUT/check-B.log | head -1; xz -9 $OUT/check-B.json
timeout 400 bash $OLDPWD/scripts/ab-rounds.sh $B/fla-bench-A $B/fla-bench-B $OUT/ab 2 --filter '^(gla|simple_gla|rwkv6)/fused_recurrent/fwdbwd/' --no-check --min-time 0.2 --min-samples 5; echo "ab rc $?"
cat $OUT/ab/rounds.txt | grep -v " same" | head -40; tail -3 $OUT/ab/rounds.txt
cd $OUT && tar cJf logs.tar.xz check-B.log ab && rm -rf check-B.log ab/*.log
