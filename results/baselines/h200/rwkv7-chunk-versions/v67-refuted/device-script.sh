#!/bin/bash
# stop 78: rwkv7 chunk v67 candidates: the 16-bit local gradients read the phase's next product's first
# strip of sums during the product before's last strip (plane_product's Then). B (default): dw -> dO S^T ->
# v dS^T -> V_new dS^T; A (FLA_AB_LOCAL=0): none, as committed (the binary's C instances, which chain the
# pair products and dX's too, were not run: device time). 16-bit fwd+bwd batteries each way, A/B rounds,
# profiles.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s78d; mkdir -p $R; cp run-s78d.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s78d.tar.xz s78d); }
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'local_grads_mma_kernel' > $R/res-usage.txt 2>&1
nvidia-smi -L > $R/gpu.txt
date
A="env FLA_AB_LOCAL=0"; B="env"
K='rwkv7/(chunk|fused_recurrent)/fwdbwd/(bf16|fp16)/'
for x in A B; do timeout 100 ${!x} ./fb check --filter "$K" --out $R/check-$x.json > $R/check-$x.log 2>&1; grep 'cases:' $R/check-$x.log; done
pack; date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/|^rwkv7/chunk/fwdbwd/bf16/.*/C32'
for round in 1 2; do
  for x in A B; do ${!x} ./fb --filter "$F" $O --out $R/$x-$round.json > $R/$x-$round.log 2>&1; tail -n1 $R/$x-$round.log; done
  pack; date
done
./fb compare --rounds $R/A-1.json $R/B-1.json $R/A-2.json $R/B-2.json > $R/ab-B.txt 2>&1; tail -n 16 $R/ab-B.txt
for x in A B; do ${!x} ./fb profile --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)' --preset peer --out $R/profile-$x.json > $R/profile-$x.log 2>&1; done
grep -h "local_grads" $R/profile-A.log $R/profile-B.log
pack; date
