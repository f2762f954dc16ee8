#!/bin/bash
# Stop 100 call B (carry build-part-s100/v74, branch v74-ring): version 74, the one-kernel chunk forwards'
# loads three stages deep (two chunks' copies in flight while the readers compute one) and simple_gla's gates
# fetched with the copies, one state buffer. Its battery over the three ops' bf16 C = 64 chunk cases, an A/B
# against main (/tmp/mainfb, call A) over the peer shapes the one-kernel forwards take, compute-sanitizer.
mkdir -p /tmp/v74; cp -r build-part-s100/v74/lib /tmp/v74/
xz -T0 -dc build-part-s100/v74/fla-bench.xz > /tmp/v74/fb; chmod +x /tmp/v74/fb
export LD_LIBRARY_PATH=/tmp/v74/lib; fb=/tmp/v74/fb
R=/tmp/s100e; mkdir -p $R; cp s100/callB.sh $R/device-script.sh
pack() { tar -cJf $OUT/s100e.tar.xz -C /tmp s100e; }
nvidia-smi --query-gpu=name --format=csv,noheader; date
timeout 80 $fb check --no-long --filter '/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/.*C64' --out $R/check.json > $R/check.log 2>&1
echo "check rc $?"; tail -n2 $R/check.log; xz -T0 -f $R/check.json; pack
if [ -x /tmp/mainfb/fb ]; then
  timeout 200 bash scripts/ab-rounds.sh /tmp/mainfb/fb $fb $R/ab 2 --preset peer \
    --filter '^((gla|rwkv6)/chunk/fwd/bf16/.*K64|simple_gla/chunk/(fwd|fwdbwd)/bf16/)' \
    --axis C=64 --min-time 0.15 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?"; tail -n 22 $R/ab-out.txt
else echo "no /tmp/mainfb: the machine went cold between calls, A/B not run"; fi
pack; date
F='^[a-z]+/(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 100 compute-sanitizer --tool memcheck --print-limit 10 $fb check --no-isolate --no-long --filter "$F" --out $R/mc.json > $R/memcheck.log 2>&1
echo "memcheck rc $?"; grep -E "cases:|SUMMARY" $R/memcheck.log | head -3; rm -f $R/mc.json; pack
timeout 100 compute-sanitizer --tool synccheck --print-limit 10 $fb check --no-isolate --no-long --filter "$F" --out $R/sc.json > $R/synccheck.log 2>&1
echo "synccheck rc $?"; grep -E "cases:|SUMMARY" $R/synccheck.log | head -3; rm -f $R/sc.json; pack
timeout 100 compute-sanitizer --tool racecheck --print-limit 10 $fb check --no-isolate --no-long \
  --filter '^[a-z]+/(gla|simple_gla)/chunk/fwd/bf16/B[0-9]-T(1|65|130|1100)-H(16|48).*C64' --out $R/rc.json > $R/racecheck.log 2>&1
echo "racecheck rc $?"; grep -E "cases:|SUMMARY" $R/racecheck.log | head -3; rm -f $R/rc.json
pack; date
