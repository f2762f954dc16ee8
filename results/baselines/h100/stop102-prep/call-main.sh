#!/bin/bash
# Stop 102's prepared chain, first call (carry build-part-s102/main: main a88bcfc, chunk versions 77-82): the
# base binary into /tmp/mainfb for call-v83.sh on the same warm machine (within its 30 s window).
set -u
mkdir -p /tmp/mainfb; cp -r build-part-s102/main/lib /tmp/mainfb/
xz -T0 -dc build-part-s102/main/fla-bench.xz > /tmp/mainfb/fb; chmod +x /tmp/mainfb/fb
nvidia-smi --query-gpu=name --format=csv,noheader; LD_LIBRARY_PATH=/tmp/mainfb/lib /tmp/mainfb/fb --version
