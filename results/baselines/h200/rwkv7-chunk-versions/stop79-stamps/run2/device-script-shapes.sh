#!/bin/bash
# prep/stop79 (not for main): the instrumented build's per-warp barrier stamps of the 16-bit local gradients in
# rwkv7's fused_recurrent bf16 fwd+bwd at the three shapes whose ratios are left, on the device (carry
# build-part with this branch's fla-bench.xz and lib/). Each case runs once (--profile-once); the file holds the
# last launch's stamps. Then scripts/local-stamps.py on each file (python3 there).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stamps; mkdir -p $R
for shape in "B=8 T=1024 H=8 D=64" "B=4 T=4096 H=16 D=64" "B=4 T=4096 H=16 D=128"; do
  set -- $shape; tag=${1#B=}-${2#T=}-${3#H=}-${4#D=}
  FLA_LOCAL_STAMPS=$R/stamps-$tag.bin ./fb --filter '^rwkv7/fused_recurrent/fwdbwd/bf16' --axis $1 --axis $2 \
    --axis $3 --axis $4 --profile-once --no-check --out /tmp/j-$tag.json > $R/run-$tag.log 2>&1
  python3 ../scripts/local-stamps.py $R/stamps-$tag.bin > $R/stamps-$tag.txt 2>&1; cat $R/stamps-$tag.txt
  xz -9 $R/stamps-$tag.bin
done
