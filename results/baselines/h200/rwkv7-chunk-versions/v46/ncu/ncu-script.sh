#!/usr/bin/env bash
# stop 55: ncu of v46s tensor-core state passes at few heads (bf16 C32, copy warps)
R=$PWD; B=/tmp/b59; mkdir -p $B; cp -r build-part/lib $B/; xz -dc build-part/fla-bench-new.xz > $B/fla-bench; chmod +x $B/fla-bench
cd $OUT
prof() {  # name kernel-regex mode B T warps
  ncu --set full --import-source yes -k "regex:$2" --launch-count 1 -o /tmp/$1 $B/fla-bench --filter "^rwkv7/chunk/$3/bf16" --axis B=$4 --axis T=$5 --axis H=16 --axis D=64 --axis C=32 --profile-once --no-check --out /tmp/j.json > /tmp/$1.log 2>&1; tail -1 /tmp/$1.log
  ncu --import /tmp/$1.ncu-rep --page details > $OUT/$1-details.txt 2>&1
  ncu --import /tmp/$1.ncu-rep --page source --csv --print-source sass > $OUT/$1-source.csv 2>&1; gzip -9 $OUT/$1-source.csv
  python3 $R/scripts/ncu-source-regions.py --warps $6 --ops 6 --by-count 12 $OUT/$1-source.csv.gz > $OUT/$1-regions.txt 2>&1 || true
}
prof states-few 'states_mma' fwd 1 24576 512
prof dstates-few 'dstates_mma' fwdbwd 1 24576 512
grep -E "Duration|Registers Per|Achieved Occupancy|Executed Ipc A|Issue Slots Busy|Warp Cycles Per Issued" $OUT/*-details.txt
