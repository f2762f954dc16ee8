#!/bin/bash
# stop 96, call d: why version 97 is slower: ncu of the committed (base) and version 97 (new) forwards, one
# launch each, gla bf16 at 8,1024,8,64 (1.07x slower) and rwkv7 bf16 at 2,16384,16,128 (1.016x slower).
cd build-part-s96/new; xz -dc fla-bench.xz > fb; chmod +x fb
R=/tmp/v97n; mkdir -p $R; cp d.sh $R/device-script.sh
for side in base new; do
  if [ $side = base ]; then B=../base/fb; export LD_LIBRARY_PATH=$PWD/../base/lib; else B=./fb; export LD_LIBRARY_PATH=$PWD/lib; fi
  for c in '^gla/fused_recurrent/fwd/bf16/B8-T1024-H8-K64-V64' '^rwkv7/fused_recurrent/fwd/bf16/B2-T16384-H16-K128'; do
    n=$(echo $c | cut -d/ -f1 | tr -d '^')
    timeout 120 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section InstructionStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters -k regex:fused_recurrent_fwd --launch-count 1 $B --filter "$c" --preset peer --profile-once --no-check --out /tmp/j.json > $R/ncu-$n-$side.txt 2>&1; echo "ncu $n $side rc $?"
    grep -E "Duration|Issue Slots Busy|Executed Instructions  |Registers Per|Warp Cycles Per Issued|Dynamic Shared|Achieved Occupancy|Bank" $R/ncu-$n-$side.txt | head -12
  done
done
tar -cJf $OUT/v97n.tar.xz -C /tmp v97n
