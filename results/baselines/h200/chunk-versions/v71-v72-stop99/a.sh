#!/bin/bash
# Stop 99 call A: main's fla-bench (9187731's kernels) extracted to /tmp/basefb for call C. Carry build-part-s98/base.
set -e
mkdir -p /tmp/basefb; cp -r build-part-s98/base/lib /tmp/basefb/
xz -T0 -dc build-part-s98/base/fla-bench.xz > /tmp/basefb/fb; chmod +x /tmp/basefb/fb
LD_LIBRARY_PATH=/tmp/basefb/lib /tmp/basefb/fb --version 2>&1 | head -2; nvidia-smi --query-gpu=name --format=csv
