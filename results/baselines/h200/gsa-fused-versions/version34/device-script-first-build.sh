cd build-part
xz -dc fla-bench-base.xz > fb-base && xz -dc fla-bench.xz > fb-new && chmod +x fb-base fb-new
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p /tmp/r
./fb-new check --filter gsa/ --out /tmp/r/check-gsa-new.json > /tmp/r/check-gsa-new.log 2>&1; echo "check new rc=$?"
tail -3 /tmp/r/check-gsa-new.log; grep -E " (failed|FAILED|error)" /tmp/r/check-gsa-new.log | head -20
./fb-base check --filter gsa/ --out /tmp/r/check-gsa-base.json > /tmp/r/check-gsa-base.log 2>&1; echo "check base rc=$?"
python3 ../scripts/check-error-compare.py /tmp/r/check-gsa-base.json /tmp/r/check-gsa-new.json > /tmp/r/check-errors.txt 2>&1; tail -25 /tmp/r/check-errors.txt
./fb-new --filter '^(gsa|gla)/fused_recurrent/(fwd|fwdbwd)/bf16' --preset peer --min-time 0.2 --min-samples 5 --out /tmp/r/gsa-fused.json > /tmp/r/gsa-fused.log 2>&1; grep -E "gsa|gla|cases" /tmp/r/gsa-fused.log
bash ../scripts/ab-rounds.sh ./fb-base ./fb-new /tmp/r/ab 2 --filter '^gsa/fused_recurrent/fwdbwd/' --preset peer --no-check --min-time 0.2 --min-samples 5 > /dev/null 2>&1
grep -A16 "^case" /tmp/r/ab/rounds.txt | head -18; tail -4 /tmp/r/ab/rounds.txt
./fb-new profile --filter '^gsa/fused_recurrent/fwdbwd/bf16/B(8-T1024|1-T24576|4-T4096-H16-K64)' --preset peer --no-check --min-time 0.1 --min-samples 3 > /tmp/r/profile-new.log 2>&1
grep -E "ms|kernel|%" /tmp/r/profile-new.log | cut -c1-150 | head -90
tar -C /tmp -cJf $OUT/r.tar.xz r
