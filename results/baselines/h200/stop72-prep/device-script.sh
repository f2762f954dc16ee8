#!/bin/bash
# stop 72 (prepared without a GPU; run in a later session): three placement/width experiments in one binary,
# each behind an A/B-only switch (old behaviour with the switch set):
#   FLA_AB_SCALAR_TRANSPOSE  gsa's one transpose in 4-byte moves (version 52's) instead of 16-byte vectors
#   FLA_AB_UNPAIRED_SCANS    chunk's forward/reverse scan at fewer blocks than SMs launched plainly, not in TPC pairs
#   FLA_AB_UNPAIRED_STATES   rwkv7 chunk's state pass beside intra/outputs launched plainly, not in TPC pairs
# and gsa version 54 (fp16's row balance by 2^e from its bits, no switch: bit-for-bit, read in the profile);
# checks (placement, vector width and the exact 2^e change no arithmetic: every error bit-for-bit against
# stop 71's gsa and stop 70's other chunk readings),
# then two A/B rounds: OLD (all three switches) against NEW (none), and the transpose alone on gsa's fused.
cd build-part; xz -dc fla-bench-s72prep.xz > fb; chmod +x fb  # built from branch prep/stop72
export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop72-prep; mkdir -p $R
cp run-s72a.sh $R/device-script.sh
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'transpose_states_kernel\|chunk_scan_kernel' | grep -o 'Function [^:]*:\|REG:[0-9]*\|SHARED:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
./fb check --filter '^gsa/|/chunk/' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep FAIL $R/check.log | head
date
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '^(gsa/chunk/fwdbwd/bf16|rwkv7/chunk/fwd/bf16)/' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n4 $R/memcheck.log
date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
FA='^(gla|rwkv6|simple_gla)/(chunk/(fwd|fwdbwd)|fused_recurrent/fwdbwd)/bf16/'
FB='^(rwkv7/chunk/(fwd|fwdbwd)/bf16|gsa/fused_recurrent/(fwd|fwdbwd))/'
old() { FLA_AB_SCALAR_TRANSPOSE=1 FLA_AB_UNPAIRED_SCANS=1 FLA_AB_UNPAIRED_STATES=1 "$@"; }
for round in 1 2; do
  old ./fb --filter "$FA" --axis C=64 $O --out $R/a-old-$round.json > $R/a-old-$round.log 2>&1; tail -n1 $R/a-old-$round.log
  ./fb --filter "$FA" --axis C=64 $O --out $R/a-new-$round.json > $R/a-new-$round.log 2>&1; tail -n1 $R/a-new-$round.log
  old ./fb --filter "$FB" --axis C=32 $O --out $R/b-old-$round.json > $R/b-old-$round.log 2>&1; tail -n1 $R/b-old-$round.log
  ./fb --filter "$FB" --axis C=32 $O --out $R/b-new-$round.json > $R/b-new-$round.log 2>&1; tail -n1 $R/b-new-$round.log
  FLA_AB_SCALAR_TRANSPOSE=1 ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/t-old-$round.json > $R/t-old-$round.log 2>&1; tail -n1 $R/t-old-$round.log
  ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/t-new-$round.json > $R/t-new-$round.log 2>&1; tail -n1 $R/t-new-$round.log
  date
done
./fb compare --rounds $R/a-old-1.json $R/a-new-1.json $R/a-old-2.json $R/a-new-2.json > $R/ab-a.txt 2>&1
./fb compare --rounds $R/b-old-1.json $R/b-new-1.json $R/b-old-2.json $R/b-new-2.json > $R/ab-b.txt 2>&1
./fb compare --rounds $R/t-old-1.json $R/t-new-1.json $R/t-old-2.json $R/t-new-2.json > $R/ab-transpose.txt 2>&1
tail -n 30 $R/ab-a.txt $R/ab-b.txt $R/ab-transpose.txt
./fb profile --filter '^(rwkv7/chunk/fwd/bf16|gsa/fused_recurrent/fwdbwd/(bf16|fp16))/B1-T24576' --axis C=32 --preset peer --out $R/profile.json > $R/profile.log 2>&1; tail -n1 $R/profile.log
date
cd $OUT && tar -cJf stop72-prep.tar.xz stop72-prep && rm -rf stop72-prep
