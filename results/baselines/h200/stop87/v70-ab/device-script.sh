#!/bin/bash
# stop 87: rwkv7's chunked backward in pieces of chunks from the sequence's end (FLA_AB_BWD_PIECES=N, default 1:
# main's behaviour), its reverse scan on a high-priority side stream beside the later pieces' local and channel
# gradients (and, in fused_recurrent's fwd+bwd, the earlier pieces' intra; FLA_AB_BWD_INTRA_WHOLE=1 keeps intra
# whole before them). A/B at the peer shapes (bf16 fwd+bwd of fused_recurrent and chunk), per-launch profiles,
# the rwkv7 fwd+bwd battery at 1 and 3 pieces (bit for bit expected), memcheck over pieces.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s87a; mkdir -p $R; cp run-s87a.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s87a.tar.xz s87a); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
date
F='^rwkv7/(fused_recurrent|chunk)/fwdbwd/bf16/'
O='--preset peer --min-time 0.2 --min-samples 5 --no-check'
for n in 2 4; do
  BASE_ENV=FLA_AB_BWD_PIECES=1 NEW_ENV=FLA_AB_BWD_PIECES=$n timeout 130 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab-p$n 2 --filter "$F" $O | tail -n 13
  pack; date
done
BASE_ENV=FLA_AB_BWD_PIECES=1 NEW_ENV='FLA_AB_BWD_PIECES=4 FLA_AB_BWD_INTRA_WHOLE=1' timeout 60 bash ../scripts/ab-rounds.sh ./fb ./fb $R/ab-p4-intra-whole 1 --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/' $O | tail -n 8
pack; date
for n in 1 4; do
  FLA_AB_BWD_PIECES=$n timeout 60 ./fb profile --filter '^rwkv7/(fused_recurrent|chunk)/fwdbwd/bf16/' --preset peer --out $R/profile-p$n.json > $R/profile-p$n.log 2>&1; echo "profile p$n rc $?"
done
pack; date
for n in 1 3; do
  FLA_AB_BWD_PIECES=$n timeout 70 ./fb check --filter 'rwkv7/(fused_recurrent|chunk)/fwdbwd/' --out $R/check-p$n.json > $R/check-p$n.log 2>&1; echo "check p$n rc $?"; tail -n2 $R/check-p$n.log
done
python3 ../scripts/check-error-compare.py $R/check-p1.json $R/check-p3.json > $R/check-p1-vs-p3.txt 2>&1; head -n 5 $R/check-p1-vs-p3.txt
pack; date
FLA_AB_BWD_PIECES=3 timeout 80 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter 'rwkv7/(fused_recurrent|chunk)/fwdbwd/(bf16|fp16)/.*T(1000|65)-' --out $R/memcheck.json > $R/memcheck.log 2>&1; echo "memcheck rc $?"; tail -n3 $R/memcheck.log
pack; date
