#!/bin/bash
# ncu of rwkv7's saving forward (fwd+bwd's first kernel) at 2,16384,16,128, bf16, beside stop68-ncu's plain one
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
R=$OUT/stop68-ncu-saving; mkdir -p $R; cp run-ncu-saving.sh $R/device-script.sh
timeout 200 ncu --set full --import-source yes -k regex:fused_recurrent_fwd --launch-count 1 -o /tmp/save16 ./fb --filter '^rwkv7/fused_recurrent/fwdbwd/bf16/B2-T16384-H16-K128' --preset peer --profile-once --no-check --out /tmp/j.json > $R/ncu.log 2>&1; echo "ncu rc $?"
ncu --import /tmp/save16.ncu-rep --page details > $R/details.txt 2>&1
ncu --import /tmp/save16.ncu-rep --page source --csv --print-source sass > $R/source.csv 2>&1; gzip -9 $R/source.csv
grep -E "Duration|Issue Slots Busy|Executed Ipc A" $R/details.txt
