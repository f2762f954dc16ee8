#!/bin/bash
# stop 94, call a (carries build-part-a: the committed kernels, HEAD b51664d): leaves build-part-a/fb on the
# machine as the base of call b.
cd "$(dirname "$0")"; xz -dc fla-bench.xz > fb; chmod +x fb; nvidia-smi --query-gpu=name,uuid --format=csv; ls -la fb
