#!/bin/bash
# stop 91, call e (carries build-part-b: chunk version 59's build): a reading, no change. ncu (full set, SASS
# source) of gla's bf16 chunk kernels at 4,4096,16,128, C = 64, one launch each: the output pass of the
# forward and the key gradients of the fwd+bwd (issue 4's D = 128 cells; the last ncu of them was version 45's);
# and the static SASS mix of every kernel of this build (sass-mix.py, as at stop 90).
cd "$(dirname "$0")"; [ -x fb ] || { xz -dc fla-bench.xz > fb; chmod +x fb; }; export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s91e; mkdir -p $R; cp run-s91e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s91e.tar.xz s91e); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
date
timeout 200 bash -c "cuobjdump -sass fb | python3 sass-mix.py > $R/sass-mix.jsonl"; echo "sass rc $?"; xz -T8 $R/sass-mix.jsonl; pack
S="--axis B=4 --axis T=4096 --axis H=16 --axis D=128 --axis C=64 --profile-once --no-check"
for job in "output fwd chunk_output_kernel" "keygrads fwdbwd chunk_key_grads_kernel"; do
  set -- $job; tag=$1
  timeout 150 ncu --set full --import-source yes -k "regex:$3" --launch-count 1 -o /tmp/n-$tag ./fb --filter "^gla/chunk/$2/bf16/" $S --out /tmp/j-$tag.json > $R/ncu-$tag.log 2>&1; echo "ncu $tag rc $?"; tail -n 2 $R/ncu-$tag.log
  ncu --import /tmp/n-$tag.ncu-rep --page details > $R/details-$tag.txt 2>&1; xz -T8 -k $R/details-$tag.txt
  ncu --import /tmp/n-$tag.ncu-rep --page source --csv --print-source sass > $R/source-$tag.csv 2>&1; gzip -9 $R/source-$tag.csv
  pack; date
done
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Theoretical Occupancy|Executed Instructions  |DRAM Throughput" $R/details-*.txt | head -40
