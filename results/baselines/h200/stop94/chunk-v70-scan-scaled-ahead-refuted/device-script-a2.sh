#!/bin/bash
# stop 94, call a2 (carries build-part-c: version 69, the committed kernels at a5ee22c): leaves
# build-part-c/fb on the machine as the base of call e.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; nvidia-smi --query-gpu=name,uuid --format=csv; ls -la fb
