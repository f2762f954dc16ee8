#!/bin/bash
# stop 75: ncu of rwkv7's chunk-form reverse scan (fused_recurrent's bf16 fwd+bwd) and of the chunk forward's
# state pass at 2,16384,16,128 (C = 32), each one launch, for what bounds their 2.8 us chunk step. Build:
# stop 75's v54 A/B binary with its switch unset (the committed kernels and rule).
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s75e; mkdir -p $R
cp run-s75e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s75e.tar.xz s75e); }
date
ncu_one() {  # name, kernel regex, case filter
  timeout 200 ncu --set full --import-source yes -k "regex:$2" --launch-count 1 -o /tmp/ncu-$1 ./fb --filter "$3" --preset peer --profile-once --no-check --out /tmp/j-$1.json > $R/ncu-$1.log 2>&1; echo "ncu $1 rc $?"
  ncu --import /tmp/ncu-$1.ncu-rep --page details > $R/ncu-$1-details.txt 2>&1
  ncu --import /tmp/ncu-$1.ncu-rep --page source --csv --print-source sass > $R/ncu-$1-source.csv 2>&1; gzip -9 $R/ncu-$1-source.csv
  grep -E "Duration|Issue Slots Busy|Executed Ipc A|Registers Per|Achieved Occupancy|L2 Hit Rate|DRAM Throughput|Memory Throughput" $R/ncu-$1-details.txt | head -12
  pack
}
ncu_one dstates 'dstates_mma' '^rwkv7/fused_recurrent/fwdbwd/bf16/B2-T16384-H16-K128'
ncu_one states 'chunk_states_mma' '^rwkv7/chunk/fwd/bf16/B2-T16384-H16-K128.*/C32'
date
