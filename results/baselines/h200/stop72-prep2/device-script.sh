#!/bin/bash
# stop 72, second call (the first, run-s72a.sh, ran past the call's limit and only its gla/rwkv6/simple_gla A/B
# came back): gsa's and rwkv7 chunk's checks, memcheck of gsa chunk's bf16 fwd+bwd, the A/B rounds for rwkv7
# chunk and gsa fused (all switches against none; the transpose alone), the profile; tarred after every step
cd build-part; xz -dc fla-bench-s72prep.xz > fb; chmod +x fb  # built from branch prep/stop72 (d98acd8)
export LD_LIBRARY_PATH=$PWD/lib
R=/tmp/stop72-prep2; mkdir -p $R
cp run-s72b.sh $R/device-script.sh
save() { (cd /tmp && tar -cJf $OUT/stop72-prep2.tar.xz stop72-prep2); }
nvidia-smi --query-gpu=name,clocks.max.sm,serial --format=csv,noheader > $R/gpu.txt
cuobjdump -res-usage fb 2>/dev/null | grep -A1 'transpose_states_kernel\|chunk_scan_kernel\|chunk_logit_grads' | grep -o 'Function [^:]*:\|REG:[0-9]*\|SHARED:[0-9]*' | paste - - - > $R/registers.txt 2>&1
date
timeout 150 ./fb check --filter '^(gsa/|rwkv7/chunk/)' --out $R/check.json > $R/check.log 2>&1; tail -n2 $R/check.log
grep FAIL $R/check.log | head -5; save
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 ./fb check --no-isolate --filter '^gsa/(chunk|fused_recurrent)/fwdbwd/bf16/' --out $R/memcheck.json > $R/memcheck.log 2>&1; tail -n3 $R/memcheck.log; save
date
O="--preset peer --min-time 0.2 --min-samples 5 --no-check"
FB='^(rwkv7/chunk/(fwd|fwdbwd)/bf16|gsa/fused_recurrent/(fwd|fwdbwd))/'
old() { FLA_AB_SCALAR_TRANSPOSE=1 FLA_AB_UNPAIRED_SCANS=1 FLA_AB_UNPAIRED_STATES=1 "$@"; }
for round in 1 2; do
  old ./fb --filter "$FB" --axis C=32 $O --out $R/b-old-$round.json > $R/b-old-$round.log 2>&1; tail -n1 $R/b-old-$round.log
  ./fb --filter "$FB" --axis C=32 $O --out $R/b-new-$round.json > $R/b-new-$round.log 2>&1; tail -n1 $R/b-new-$round.log
  FLA_AB_SCALAR_TRANSPOSE=1 ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/t-old-$round.json > $R/t-old-$round.log 2>&1; tail -n1 $R/t-old-$round.log
  ./fb --filter '^gsa/fused_recurrent/fwdbwd/' $O --out $R/t-new-$round.json > $R/t-new-$round.log 2>&1; tail -n1 $R/t-new-$round.log
  save; date
done
./fb compare --rounds $R/b-old-1.json $R/b-new-1.json $R/b-old-2.json $R/b-new-2.json > $R/ab-b.txt 2>&1
./fb compare --rounds $R/t-old-1.json $R/t-new-1.json $R/t-old-2.json $R/t-new-2.json > $R/ab-transpose.txt 2>&1
tail -n 4 $R/ab-b.txt $R/ab-transpose.txt; save
timeout 60 ./fb profile --filter '^(rwkv7/chunk/fwd/bf16|gsa/fused_recurrent/fwdbwd/(bf16|fp16))/B1-T24576' --axis C=32 --preset peer --out $R/profile.json > $R/profile.log 2>&1; tail -n1 $R/profile.log
save; date
