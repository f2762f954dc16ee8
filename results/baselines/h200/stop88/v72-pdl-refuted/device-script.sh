#!/bin/bash
# stop 88: programmatic dependent launch in rwkv7's chunked backward (A/B build): intra, the reverse scan, the
# local gradients and the channel kernel launched with the programmatic attribute where FLA_AB_PDL=1 (each
# kernel waits for the one before, then lets the next launch; the local gradients wait after their first
# item's staging). Batteries with it on (bit for bit against stop 88's first run expected), two A/B rounds of
# rwkv7's bf16 fwd+bwd (fused, chunk) at the peer and few-heads shapes and the chunk forward, per-launch
# profiles at 8,1024,8,64 both ways, memcheck with it on.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s88d; mkdir -p $R; cp run-s88d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s88d.tar.xz s88d); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
FLA_AB_PDL=1 timeout 70 ./fb check --filter 'rwkv7/(fused_recurrent|chunk)/fwdbwd/' --out $R/check-rwkv7-fwdbwd-pdl.json > $R/check-rwkv7-fwdbwd-pdl.log 2>&1; echo "check rc $?"; tail -n2 $R/check-rwkv7-fwdbwd-pdl.log
python3 ../scripts/check-error-compare.py ref-fwdbwd.json $R/check-rwkv7-fwdbwd-pdl.json > $R/check-errors-fwdbwd.txt 2>&1; head -n 4 $R/check-errors-fwdbwd.txt
FLA_AB_PDL=1 timeout 40 ./fb check --filter 'rwkv7/chunk/.*/bf16/' --out $R/check-chunk-bf16-pdl.json > $R/check-chunk-bf16-pdl.log 2>&1; echo "check rc $?"; tail -n2 $R/check-chunk-bf16-pdl.log
python3 ../scripts/check-error-compare.py ref-chunk-bf16.json $R/check-chunk-bf16-pdl.json > $R/check-errors-chunk-bf16.txt 2>&1; head -n 4 $R/check-errors-chunk-bf16.txt
pack; date
BASE_ENV=FLA_AB_PDL=0 NEW_ENV=FLA_AB_PDL=1 timeout 200 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab 2 \
  --filter '^rwkv7/(fused_recurrent/fwdbwd|chunk/(fwd|fwdbwd))/bf16/' --preset peer --min-time 0.2 --min-samples 5 --no-check | tail -n 20
pack; date
BASE_ENV=FLA_AB_PDL=0 NEW_ENV=FLA_AB_PDL=1 timeout 90 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab-few-heads 2 \
  --filter '^rwkv7/(fused_recurrent|chunk)/fwdbwd/bf16/' --axis B=1 --axis T=8192,24576 --axis H=16 --axis D=64 --min-time 0.2 --min-samples 5 --no-check | tail -n 8
pack; date
for pdl in 0 1; do
  FLA_AB_PDL=$pdl timeout 40 ./fb profile --filter "^rwkv7/(fused_recurrent|chunk)/fwdbwd/bf16/B8-T1024" --preset peer --out $R/profile-pdl$pdl.json > $R/profile-pdl$pdl.log 2>&1; echo "profile pdl$pdl rc $?"
  python3 ../scripts/timeline.py $R/profile-pdl$pdl.json > $R/timeline-pdl$pdl.txt 2>&1
done
pack; date
FLA_AB_PDL=1 timeout 100 compute-sanitizer --tool memcheck --print-limit 20 ./fb --no-isolate --filter '^rwkv7/(fused_recurrent|chunk)/fwdbwd/bf16/' --axis B=1,4 --axis T=1000,8192 --axis H=4 --axis D=64 --min-time 0.001 --min-samples 1 --warmup 0 --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
