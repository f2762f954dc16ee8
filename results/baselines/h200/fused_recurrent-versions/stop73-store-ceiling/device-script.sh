#!/bin/bash
# stop 73, call 2: the ceiling of the saving forward's stores before rwkv7's chunk-form backward (timing only,
# --no-check: the gradients are wrong with a switch set). Temporary host switches in fused::forward:
#   FLA_AB_NO_SA=1    no a^T S_{t-1} stores (sa = nullptr)
#   FLA_AB_NO_CKPT=1  one checkpoint only (checkpoint_every = 2^20: every part runs the loop without stores)
# per-kernel profile of rwkv7's bf16 fused fwd+bwd at the D = 128 peer shapes under each, and the forward.
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s73b; mkdir -p $R
cp run-s73b.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s73b.tar.xz s73b); }
date
O="--preset peer --no-check --min-time 0.2 --min-samples 5"
F='^rwkv7/fused_recurrent/fwdbwd/bf16/B(2-T16384|4-T4096-H16-K128)'
./fb profile --filter '^rwkv7/fused_recurrent/fwd/bf16/B(2-T16384|4-T4096-H16-K128)' $O --out $R/prof-fwd.json > $R/prof-fwd.log 2>&1; tail -n1 $R/prof-fwd.log
./fb profile --filter "$F" $O --out $R/prof-base.json > $R/prof-base.log 2>&1; tail -n1 $R/prof-base.log
FLA_AB_NO_SA=1 ./fb profile --filter "$F" $O --out $R/prof-nosa.json > $R/prof-nosa.log 2>&1; tail -n1 $R/prof-nosa.log
FLA_AB_NO_CKPT=1 ./fb profile --filter "$F" $O --out $R/prof-nockpt.json > $R/prof-nockpt.log 2>&1; tail -n1 $R/prof-nockpt.log
FLA_AB_NO_SA=1 FLA_AB_NO_CKPT=1 ./fb profile --filter "$F" $O --out $R/prof-both.json > $R/prof-both.log 2>&1; tail -n1 $R/prof-both.log
grep -h "fused_recurrent_fwd_kernel\|^rwkv7" $R/prof-*.log
pack; date
