#!/bin/bash
# stop 78 reading (no version): ncu's source pages of the chunk-form backward's four kernels in rwkv7's
# fused_recurrent bf16 fwd+bwd (intra, reverse scan, local gradients, channel kernel) at 4,4096,16,64,
# 4,4096,16,128 and 2,16384,16,128, on the committed kernels (v66's A/B binary without its switch set).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/ncu78; mkdir -p $R; cp run-s78c.sh $R/device-script.sh
nvidia-smi -L > $R/gpu.txt
for shape in "B=4 T=4096 D=64" "B=4 T=4096 D=128" "B=2 T=16384 D=128"; do
  set -- $shape; tag=${1#B=}-${2#T=}-${3#D=}
  timeout 170 ncu --set full --import-source yes -k "regex:intra_mma|dstates_mma|local_grads|channel_grads" --launch-count 4 -o /tmp/bwd-$tag ./fb --filter "^rwkv7/fused_recurrent/fwdbwd/bf16" --axis $1 --axis $2 --axis H=16 --axis $3 --profile-once --no-check --out /tmp/j-$tag.json > /tmp/bwd-$tag.log 2>&1; echo "ncu $tag rc $?"; tail -n 3 /tmp/bwd-$tag.log
  ncu --import /tmp/bwd-$tag.ncu-rep --page details > $R/bwd-$tag-details.txt 2>&1
  for k in intra_mma dstates_mma local_grads channel_grads; do
    ncu --import /tmp/bwd-$tag.ncu-rep -k "regex:$k" --page source --csv --print-source sass > $R/$k-$tag-source.csv 2>&1; gzip -9 $R/$k-$tag-source.csv
  done
  (cd /tmp && tar -cJf $OUT/ncu78.tar.xz ncu78)
done
grep -E "^  [a-z].*\(|Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Theoretical Occupancy" $R/*details.txt | head -80
