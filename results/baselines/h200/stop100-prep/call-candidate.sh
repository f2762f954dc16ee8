#!/bin/bash
# Stop 100's prepared calls: one candidate of the one-kernel chunk forwards against version 74 (/tmp/basefb,
# from call-base.sh on the same warm machine). usage: call-candidate.sh NAME (carry build-part-s100/NAME):
# v76 (branch v76-descriptors) or v7576 (branch v75-v76). Its battery over the three ops' bf16 C = 64 chunk
# cases and their errors against version 74's (v74-check.json.xz beside this script, from v74-stop100/; bit
# for bit expected: neither candidate changes the arithmetic), the A/B over the peer shapes those kernels
# take, synccheck and racecheck over the cases they take, and ncu's source page of simple_gla's at
# 4,4096,16,128. Everything lands in $OUT/NAME.tar.xz, packed after each step.
set -u
name=$1 here=$(dirname "$0")
dir=/tmp/$name; mkdir -p $dir; cp -r build-part-s100/$name/lib $dir/
xz -T0 -dc build-part-s100/$name/fla-bench.xz > $dir/fb; chmod +x $dir/fb
export LD_LIBRARY_PATH=$dir/lib; fb=$dir/fb
R=/tmp/out-$name; mkdir -p $R; cp "$0" $R/device-script.sh
pack() { tar -cJf $OUT/$name.tar.xz -C /tmp out-$name; }
nvidia-smi --query-gpu=name --format=csv,noheader; $fb --version; date
timeout 80 $fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/.*C64' --out $R/check.json > $R/check.log 2>&1
echo "check rc $?"; tail -n2 $R/check.log; xz -T0 -f $R/check.json
python3 scripts/check-error-compare.py $here/v74-check.json.xz $R/check.json.xz \
  > $R/check-errors.txt 2>&1; sed -n 3p $R/check-errors.txt; pack
if [ -x /tmp/basefb/fb ]; then
  timeout 200 bash scripts/ab-rounds.sh /tmp/basefb/fb $fb $R/ab 2 --preset peer \
    --filter '^((gla|rwkv6)/chunk/fwd/bf16/.*K64|simple_gla/chunk/(fwd|fwdbwd)/bf16/)' \
    --axis C=64 --min-time 0.15 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 22 $R/ab-out.txt
else echo "no /tmp/basefb: the machine went cold between calls, A/B not run"; fi
pack; date
F='^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 100 compute-sanitizer --tool synccheck --print-limit 10 $fb check --no-isolate --no-long --filter "$F" --out $R/sc.json > $R/synccheck.log 2>&1
echo "synccheck rc $?"; grep -E "cases:|SUMMARY" $R/synccheck.log | head -3; rm -f $R/sc.json
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long \
  --filter '^[a-z]+/(gla|simple_gla)/chunk/fwd/bf16/B[0-9]-T(1|65|130|1100)-H(16|48).*C64' --out $R/rc.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck.log | head -3; rm -f $R/rc.json; pack
timeout 60 ncu --set full --import-source yes -k "regex:scalar_fused_forward" --launch-count 1 -o /tmp/$name $fb \
  --filter '^simple_gla/chunk/fwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 --axis K=128 --axis V=128 --axis C=64 \
  --profile-once --no-check --out /tmp/j-$name.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/$name.ncu-rep --page details > $R/details.txt 2>&1
ncu --import /tmp/$name.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1; gzip -9f $R/source.csv
grep -E "Duration|DRAM Throughput|Registers Per|Warp Cycles Per Issued" $R/details.txt | head
pack; date
