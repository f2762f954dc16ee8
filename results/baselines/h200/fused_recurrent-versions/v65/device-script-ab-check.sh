cd build-part
xz -dc fla-bench-base.xz > fb-base && xz -dc fla-bench.xz > fb-new && chmod +x fb-base fb-new
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/r
for side in new base; do
  ./fb-$side check --no-long --filter '/fused_recurrent/|rwkv7' --out /tmp/r/check-$side.json > /tmp/r/check-$side.log 2>&1; echo "check $side rc=$?"; tail -1 /tmp/r/check-$side.log
done
python3 ../scripts/check-error-compare.py /tmp/r/check-base.json /tmp/r/check-new.json > /tmp/r/check-errors.txt 2>&1; head -8 /tmp/r/check-errors.txt; grep "<--" /tmp/r/check-errors.txt | head
bash ../scripts/ab-rounds.sh ./fb-base ./fb-new /tmp/r/ab 2 --filter '^(rwkv7/fused_recurrent/(fwd|fwdbwd)|(gla|rwkv6|simple_gla)/fused_recurrent/fwd)/bf16' --preset peer --no-check --min-time 0.2 --min-samples 5 > /dev/null 2>&1
grep -A25 "^case" /tmp/r/ab/rounds.txt | head -27; tail -4 /tmp/r/ab/rounds.txt
for side in base new; do ncu --kernel-name regex:fused_recurrent_fwd --launch-count 1 --metrics sm__cycles_elapsed.avg,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_branch_resolving.ratio,launch__registers_per_thread ./fb-$side --profile-once --no-check --filter '^rwkv7/fused_recurrent/fwd/bf16/B4-T4096-H16-K64' --preset peer > /tmp/r/ncu-$side.txt 2>&1; grep -E "cycles_elapsed|inst_executed|registers" /tmp/r/ncu-$side.txt; done
tar -C /tmp -cJf $OUT/r.tar.xz r
