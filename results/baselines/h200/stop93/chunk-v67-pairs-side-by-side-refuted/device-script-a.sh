#!/bin/bash
# stop 93, call h-a (carries build-part-g: the committed kernels, gsa version 63's build): leaves
# build-part-g/fb on the machine as the base of call h-b (chunk version 67).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; nvidia-smi --query-gpu=name,uuid --format=csv; ls -la fb
