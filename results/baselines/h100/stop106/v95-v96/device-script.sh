#!/bin/bash
# Prepared at stop 106 (no device lent that stop) for the next call: chunk versions 95 (the state and output
# kernel's loads make the prepared queries and keys from q, k and g; the operands pass writes only A, the
# bonus and, before a backward, the keys' first part and the decays) and 96 (before a backward the operands
# pass also writes the prepared queries in both parts, and the backward's reverse scan reads them without its
# own prepare kernel), carrying build-part-s106/v96ab: branch v96-ab at 3ca5e41 (v96-queries-for-backward
# plus ab-build-v96.diff beside this script; FLA_AB_PREPARED_ROWS=1 runs version 94's forward and backward
# prepare, FLA_AB_BACKWARD_QUERIES=1 version 95's backward prepare). The bundle was made at stop 106
# (../shared/tools/bundle-for-device build/fla-bench build-part-s106/v96ab, the binary xz'd; git-ignored, so
# made again from that branch where it is gone). Run as the earlier calls were: this script and its diff
# copied into an untracked p/, results/baselines moved aside (the carry limit), `bash p/call-v95-v96.sh`.
# Steps: the battery over gla's and rwkv6's bf16 chunk fwd and fwd+bwd at C = 64 (the path's cases), the
# same under FLA_AB_PREPARED_ROWS=1 with the errors compared (bit for bit expected: the same sums in the same
# order); the A/B of 95 + 96 against 94 at the peer shapes (2 rounds); issue 4's table with no switch set;
# the A/B of 96 against 95 (fwd+bwd); per-kernel times at the K = 128 peer shapes; ncu of the state and
# output kernel at gla 4,4096,16,128 (whether its loads warpgroup, which now makes the rows, bounds it);
# synccheck. Lands in $OUT/v96.tar.xz, packed after each step.
set -u
source scripts/device-call.sh build-part-s106/v96ab v96 "$(dirname "$0")/ab-build-v96.diff" || exit 2
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt; $fb --version; date
F='/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/.*C64'
timeout 100 $fb check --no-long --filter "$F" --out $R/check.json > $R/check.log 2>&1
rc=$?; echo "check rc $rc"; grep -E "cases:" $R/check.log | tail -1; xz -T0 -f $R/check.json; pack
FLA_AB_PREPARED_ROWS=1 timeout 100 $fb check --no-long --filter "$F" --out $R/check-94.json > $R/check-94.log 2>&1
echo "check-94 rc $?"; grep -E "cases:" $R/check-94.log | tail -1; xz -T0 -f $R/check-94.json
python3 scripts/check-error-compare.py $R/check-94.json.xz $R/check.json.xz > $R/check-errors-96-94.txt 2>&1
sed -n 1,14p $R/check-errors-96-94.txt; pack
[ $rc -eq 0 ] || { echo "the battery failed: no timing (see check.log)"; grep -E "FAIL|fail" $R/check.log | head -20; exit 0; }
A='--preset peer --filter ^(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_PREPARED_ROWS=1' timeout 150 bash scripts/ab-rounds.sh $fb $fb $R/ab96-94 2 $A > $R/ab96-94-out.txt 2>&1
echo "ab96-94 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab96-94-out.txt; pack; date
timeout 200 $fb --filter '^(gla|rwkv6|simple_gla)/chunk/(fwd|fwdbwd)/bf16' --axis C=16,32,64 --preset peer \
  --min-time 0.15 --min-samples 5 --out $R/issue4-chunk.json > $R/issue4-chunk.log 2>&1; echo "table rc $?"
tail -2 $R/issue4-chunk.log; xz -T0 -f $R/issue4-chunk.json; pack; date
B='--preset peer --filter ^(gla|rwkv6)/chunk/fwdbwd/bf16/B[248]-T(1024|4096|16384)-H(8|16)-K --axis C=64 --min-time 0.15 --min-samples 5 --no-check'
BASE_ENV='FLA_AB_BACKWARD_QUERIES=1' timeout 90 bash scripts/ab-rounds.sh $fb $fb $R/ab96-95 2 $B > $R/ab96-95-out.txt 2>&1
echo "ab96-95 rc $?"; grep -E "^(gla|rwkv6)|cases over|geomean" $R/ab96-95-out.txt; pack; date
timeout 40 $fb profile --filter '^(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[24]-T(4096|16384)-H16-K128' --preset peer \
  --axis C=64 --out $R/profile.json > $R/profile.log 2>&1; echo "profile rc $?"; xz -T0 -f $R/profile.json; pack
timeout 100 ncu --set full --import-source yes -k "regex:prepared_fused_forward_kernel" --launch-count 1 \
  -o /tmp/fused $fb --filter '^gla/chunk/fwd/bf16/' --axis B=4 --axis T=4096 --axis H=16 --axis K=128 \
  --axis V=128 --axis C=64 --profile-once --no-check --out /tmp/j-fused.json > $R/ncu-fused.log 2>&1
echo "ncu rc $?"; ncu --import /tmp/fused.ncu-rep --page details > $R/fused-details.txt 2>&1
ncu --import /tmp/fused.ncu-rep --page source --csv --print-source sass > $R/fused-source.csv 2>&1
gzip -9f $R/fused-source.csv
grep -E "Duration|DRAM Throughput|Issue Slots Busy|Registers Per" $R/fused-details.txt | head -4; pack; date
S='^[a-z_]+/(gla|rwkv6)/chunk/(fwd|fwdbwd)/bf16/B[0-9]-T[0-9]+-H(16|48).*C64'
timeout 40 compute-sanitizer --tool synccheck --print-limit 10 $fb check --no-isolate --no-long --filter "$S" \
  --out $R/synccheck.json > $R/synccheck.log 2>&1
echo "synccheck rc $?"; grep -E "cases:|SUMMARY" $R/synccheck.log | head -3; rm -f $R/synccheck.json; pack; date
