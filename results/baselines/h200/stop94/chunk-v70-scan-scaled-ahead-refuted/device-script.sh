#!/bin/bash
# stop 94, call e (carries build-part-d: chunk version 70, simple_gla's scalar scan scaling the next chunk's
# strip during this one's products on version 69's mbarrier ring), with build-part-c/fb (version 69, the committed
# kernels) from call a2 still on the machine: racecheck, synccheck and memcheck of the scalar
# scan at small shapes; the battery of simple_gla's chunk and fused variants against call b's base battery (bit
# for bit expected); two A/B rounds; the per-kernel profile; ncu of the scalar scan at 2,16384,16,128 C = 64.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; B=../build-part-c
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/s94e; mkdir -p $R; cp run-e.sh $R/device-script.sh
pack() { (cd /tmp && tar -cJf $OUT/s94e.tar.xz s94e); }
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
[ -x $B/fb ] || { echo "call a2 build-part-c/fb is gone: a fresh machine"; exit 3; }
date
small=(--filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' --axis B=1 --axis T=1,65,200 --axis H=2 --axis D=64,128
  --axis C=16,32,64 --min-time 0.001 --min-samples 1 --warmup 0 --no-check)
for tool in racecheck synccheck memcheck; do
  timeout 100 compute-sanitizer --tool $tool --kernel-name kns=chunk_scan_kernel ./fb "${small[@]}" --out /tmp/$tool.json > $R/$tool.log 2>&1
  echo "$tool rc $?"; grep -E "HAZARD|ERROR SUMMARY|RACECHECK SUMMARY|cases:" $R/$tool.log | sort | uniq -c | head -5
done
pack; date
timeout 300 bash ../scripts/candidate.sh $B/fb ./fb $R 2 '/simple_gla/(chunk|fused_recurrent)/' check-ref.json.xz \
  --filter '^simple_gla/chunk/fwd/bf16/|^simple_gla/(chunk|fused_recurrent)/fwdbwd/bf16/' --axis C=32,64 --preset peer \
  --min-time 0.1 --min-samples 5 --no-check; echo "candidate rc $?"
grep -E "cases:" $R/check-*.log | tail -2; head -6 $R/check-errors.txt; pack
date
timeout 60 ./fb --filter '^simple_gla/chunk/(fwd|fwdbwd)/bf16/' --preset peer --axis C=64 --min-time 0.1 --min-samples 5 \
  --out $R/profile-new.json profile > $R/profile-new.log 2>&1; echo "profile rc $?"
grep -E "^simple_gla|scan" $R/profile-new.log | head -40
pack; date
S="--axis B=2 --axis T=16384 --axis H=16 --axis D=128 --axis C=64 --profile-once --no-check"
timeout 100 ncu --set full --import-source yes -k "regex:chunk_scan_kernel" --launch-count 1 -o /tmp/n-scan ./fb \
  --filter "^simple_gla/chunk/fwd/bf16/" $S --out /tmp/j-scan.json > $R/ncu-scan.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/n-scan.ncu-rep --page details > $R/details-scan.txt 2>&1; xz -T8 -k $R/details-scan.txt
ncu --import /tmp/n-scan.ncu-rep --page source --csv --print-source sass > $R/source-scan.csv 2>&1; gzip -9 $R/source-scan.csv
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Executed Instructions  |DRAM Throughput|Block Limit" $R/details-scan.txt | head -20
pack; date
