#!/bin/bash
# Stop 100 call 2 on the H200 (carry build-part-s99/icache, branch v72-icache = version 73): its battery over
# the three ops' bf16 C = 64 chunk forwards, memcheck of the cases its kernel takes, an A/B against main
# (/tmp/mainfb from call 1) over the K = 64 peer forwards, and ncu's stall reasons at gla 4,4096,16,64.
mkdir -p /tmp/icfb; cp -r build-part-s99/icache/lib /tmp/icfb/
xz -T0 -dc build-part-s99/icache/fla-bench.xz > /tmp/icfb/fb; chmod +x /tmp/icfb/fb
export LD_LIBRARY_PATH=/tmp/icfb/lib; fb=/tmp/icfb/fb
R=/tmp/s100b; mkdir -p $R; cp s100/call2h.sh $R/device-script.sh
pack() { tar -cJf $OUT/s100b.tar.xz -C /tmp s100b; }
nvidia-smi --query-gpu=name --format=csv,noheader; date
timeout 70 $fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/.*C64' --out $R/check.json > $R/check.log 2>&1
echo "check rc $?"; tail -n2 $R/check.log; xz -T0 -f $R/check.json
if [ -x /tmp/mainfb/fb ]; then
  timeout 120 bash scripts/ab-rounds.sh /tmp/mainfb/fb $fb $R/ab 2 --preset peer --filter '^(gla|rwkv6)/chunk/fwd/bf16/.*K64' \
    --axis C=64 --min-time 0.15 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 12 $R/ab-out.txt
else echo "no /tmp/mainfb: the machine went cold between calls, A/B not run"; fi
pack
timeout 120 compute-sanitizer --tool memcheck --print-limit 10 $fb check --no-isolate --no-long \
  --filter '^[a-z]+/(gla|rwkv6)/chunk/fwd/bf16/B[0-9]-T[0-9]+-H(16|48).*C64' --out $R/mc.json > $R/memcheck.log 2>&1
echo "memcheck rc $?"; grep -E "cases:|SUMMARY" $R/memcheck.log | head -3; rm -f $R/mc.json
pack
timeout 40 ncu --section WarpStateStats --section SourceCounters --section LaunchStats -k "regex:per_key_fused_forward" \
  --launch-count 1 -o /tmp/ic $fb --filter '^gla/chunk/fwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 --axis K=64 \
  --axis V=64 --axis C=64 --profile-once --no-check --out /tmp/jic.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/ic.ncu-rep --page details > $R/details.txt 2>&1
ncu --import /tmp/ic.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1; gzip -9 $R/source.csv
grep -E "Duration|Registers Per|Warp Cycles Per Issued|No Instruction|Stall" $R/details.txt | head -12
pack; date
