#!/bin/bash
# Stop 100 call A (carry build-part-s100/main): main's binary into /tmp/mainfb for call B's A/B.
mkdir -p /tmp/mainfb; cp -r build-part-s100/main/lib /tmp/mainfb/
xz -T0 -dc build-part-s100/main/fla-bench.xz > /tmp/mainfb/fb; chmod +x /tmp/mainfb/fb
nvidia-smi --query-gpu=name --format=csv,noheader; LD_LIBRARY_PATH=/tmp/mainfb/lib /tmp/mainfb/fb --version
