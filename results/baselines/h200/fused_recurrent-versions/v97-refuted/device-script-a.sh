#!/bin/bash
# stop 96, call a: the committed kernels' fused_recurrent battery (the reference for version 97's, which
# should match it bit for bit); the binary stays extracted for call b's A/B.
cd build-part-s96/base; xz -dc fla-bench.xz > fb; chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
date
timeout 300 ./fb --filter '/fused_recurrent/' check --out base-check.json > base-check.log 2>&1; echo "check rc $?"
tail -n 3 base-check.log; xz -T0 -k base-check.json; mkdir -p $OUT/s96a; cp base-check.json.xz base-check.log $OUT/s96a/
date
