#!/bin/bash
# stop 87: rwkv7 chunk v71 (tried): the pieced forward's tensor-core state pass at 16 columns a block at few
# heads (FLA_AB_FWD_COLS16=1) against 8: A/B of the chunk variant's bf16 fwd and fwd+bwd at 1,{8192,24576},16,64;
# the rwkv7 chunk bf16 battery with it on (bit for bit expected against s87f's).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s87g; mkdir -p $R; cp run-s87g.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s87g.tar.xz s87g); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
BASE_ENV=FLA_AB_FWD_COLS16=0 NEW_ENV=FLA_AB_FWD_COLS16=1 timeout 120 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab-fwd-cols16 2 --filter '^rwkv7/chunk/(fwd|fwdbwd)/bf16/' --axis B=1 --axis T=8192,24576 --axis H=16 --axis D=64 --min-time 0.2 --min-samples 5 --no-check | tail -n 9
pack; date
FLA_AB_FWD_COLS16=1 timeout 60 ./fb check --filter 'rwkv7/chunk/.*/bf16/' --out $R/check-chunk-bf16-cols16.json > $R/check-chunk-bf16-cols16.log 2>&1; echo "check rc $?"; tail -n2 $R/check-chunk-bf16-cols16.log
FLA_AB_FWD_COLS16=0 timeout 60 ./fb check --filter 'rwkv7/chunk/.*/bf16/' --out $R/check-chunk-bf16.json > $R/check-chunk-bf16.log 2>&1; echo "check rc $?"; tail -n2 $R/check-chunk-bf16.log
python3 ../scripts/check-error-compare.py $R/check-chunk-bf16.json $R/check-chunk-bf16-cols16.json > $R/check-errors.txt 2>&1; head -n 4 $R/check-errors.txt
pack; date
