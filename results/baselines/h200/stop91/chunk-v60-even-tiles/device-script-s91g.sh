#!/bin/bash
# stop 91, call g (carries build-part-b: chunk version 59's build, f12d2f0's kernels): leaves build-part-b/fb on
# the machine for call h's A/B rounds against chunk version 60.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; nvidia-smi --query-gpu=name,uuid --format=csv; ls -la fb
