#!/bin/bash
# stop 66 readings (no version): ncu's source pages of rwkv7's chunk-form backward kernels (the local
# gradients and the channel kernel) in fused_recurrent's bf16 fwd+bwd at 4,4096,16,64 and 2,16384,16,128,
# and the per-kernel profile of gsa's and gla's fused fwd+bwd at the peer shapes
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/ncu66; mkdir -p $R
cp run-ncu66.sh $R/device-script.sh
for shape in "B=4 T=4096 D=64" "B=2 T=16384 D=128"; do
  set -- $shape; tag=${1#B=}-${2#T=}-${3#D=}
  timeout 240 ncu --set full --import-source yes -k "regex:local_grads|channel_grads" --launch-count 2 -o /tmp/bwd-$tag ./fb --filter "^rwkv7/fused_recurrent/fwdbwd/bf16" --axis $1 --axis $2 --axis H=16 --axis $3 --profile-once --no-check --out /tmp/j-$tag.json > /tmp/bwd-$tag.log 2>&1; echo "ncu $tag rc $?"
  ncu --import /tmp/bwd-$tag.ncu-rep --page details > $R/bwd-$tag-details.txt 2>&1
  for k in local_grads channel_grads; do
    ncu --import /tmp/bwd-$tag.ncu-rep -k "regex:$k" --page source --csv --print-source sass > $R/$k-$tag-source.csv 2>&1; gzip -9 $R/$k-$tag-source.csv
  done
done
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy" $R/*details.txt
./fb profile --filter '^(gsa|gla)/fused_recurrent/fwdbwd/bf16' --preset peer > $R/profile-gsa-gla-fwdbwd.log 2>&1; tail -n 3 $R/profile-gsa-gla-fwdbwd.log
cd $OUT && tar -cJf ncu66.tar.xz ncu66 && rm -rf ncu66
