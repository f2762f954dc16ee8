#!/bin/bash
# stop 78: rwkv7 chunk v68 candidate: the local gradients' four C x K products (dW, dO S^T, v dS^T, V_new dS^T)
# as one product of their stacked outputs, so that a warp's strips of them are one loop that reads each next
# strip's start ahead (FLA_AB_LOCAL=0: the committed four products, bf16 only; fp16 takes v68 in both).
# Trimmed to the session's last device time: batteries (A bf16, B bf16 and fp16), two A/B rounds, B's profile.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s78e; mkdir -p $R; cp run-s78e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s78e.tar.xz s78e); }
nvidia-smi -L > $R/gpu.txt
A="env FLA_AB_LOCAL=0"; B="env"
timeout 40 $A ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/bf16/' --out $R/check-A.json > $R/check-A.log 2>&1; grep 'cases:' $R/check-A.log
timeout 40 $B ./fb check --filter 'rwkv7/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)/' --out $R/check-B.json > $R/check-B.log 2>&1; grep 'cases:' $R/check-B.log
pack
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A B; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; done
  pack
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab.txt 2>&1; tail -n 16 $R/ab.txt
pack
$B ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile-B.json > $R/profile-B.log 2>&1
grep -h "local_grads" $R/profile-B.log
pack
