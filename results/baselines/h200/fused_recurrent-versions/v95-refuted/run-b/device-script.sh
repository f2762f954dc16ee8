#!/bin/bash
# stop 95: fused_recurrent version 95, rwkv7's bf16 plain forward at 16 keys and two columns a lane with its
# state scaled by the decays within each chunk (scaled_state.cuh; one binary, FLA_AB_SCALED=1 takes it):
# registers, the rwkv7 fused bf16 forward battery both ways (bit for bit not expected: a different rounding),
# A/B rounds at the peer shapes, a checked run there, ncu of both forwards at 2,16384,16,128.
cd build-part-s95; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/v95; mkdir -p $R
pack() { tar -cJf $OUT/v95.tar.xz -C /tmp v95; }
cp run.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'fused_recurrent_fwd_kernel.*Rwkv7Form.*nv_bfloat16ELi16ELi2ELb0ELb0E' | grep -o 'Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*' | paste - - - - - > $R/registers.txt 2>&1
cat $R/registers.txt | sed 's/Function \(.\{0,40\}\).*/\1/' ; date
for s in 0 1; do
  FLA_AB_SCALED=$s timeout 150 ./fb --filter 'rwkv7/fused_recurrent/fwd/bf16/' check --out $R/check-scaled$s.json > $R/check-scaled$s.log 2>&1; echo "check $s rc $?"; tail -n 2 $R/check-scaled$s.log
done
python3 ../scripts/check-error-compare.py $R/check-scaled0.json $R/check-scaled1.json > $R/check-errors.txt 2>&1; head -5 $R/check-errors.txt
grep -c "forward_only" $R/check-scaled1.log
xz -T0 $R/check-scaled0.json $R/check-scaled1.json; pack
date
O="--preset peer --filter ^rwkv7/fused_recurrent/fwd/bf16/ --min-time 0.2 --min-samples 5 --no-check"
BASE_ENV=FLA_AB_SCALED=0 NEW_ENV=FLA_AB_SCALED=1 timeout 200 ../scripts/ab-rounds.sh ./fb ./fb $R/ab 2 $O > $R/ab-out.txt 2>&1; echo "ab rc $?"
grep -E "^rwkv7|geomean" $R/ab/rounds.txt
date
FLA_AB_SCALED=1 timeout 100 ./fb --preset peer --filter '^rwkv7/fused_recurrent/fwd/bf16/' --min-time 0.05 --out $R/spot-scaled1.json > $R/spot-scaled1.log 2>&1; echo "spot rc $?"; tail -n 3 $R/spot-scaled1.log
date
for s in 0 1; do
  FLA_AB_SCALED=$s timeout 100 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section InstructionStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis -k regex:fused_recurrent_fwd --launch-count 1 ./fb --filter '^rwkv7/fused_recurrent/fwd/bf16/B2-T16384-H16-K128' --preset peer --profile-once --no-check --out /tmp/j$s.json > $R/ncu-scaled$s.txt 2>&1; echo "ncu $s rc $?"
  grep -E "Duration|Issue Slots Busy|Issued Instructions  |Registers Per|Warp Cycles Per Issued" $R/ncu-scaled$s.txt
done
date
pack
