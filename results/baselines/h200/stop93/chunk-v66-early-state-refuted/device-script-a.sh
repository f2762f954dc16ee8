#!/bin/bash
# stop 93, call f-a (carries build-part-g: the committed kernels, gsa version 63's build): leaves
# build-part-g/fb on the machine as the base of call f-b (chunk version 66).
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; nvidia-smi --query-gpu=name,uuid --format=csv; ls -la fb
