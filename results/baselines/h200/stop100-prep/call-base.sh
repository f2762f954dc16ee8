#!/bin/bash
# Stop 100's prepared calls, first of a chain (carry build-part-s100/v74: main's one-kernel forwards, version
# 74): the base binary into /tmp/basefb for the candidates' A/B in the calls after it (within the machine's
# 30 s warm window).
set -u
mkdir -p /tmp/basefb; cp -r build-part-s100/v74/lib /tmp/basefb/
xz -T0 -dc build-part-s100/v74/fla-bench.xz > /tmp/basefb/fb; chmod +x /tmp/basefb/fb
nvidia-smi --query-gpu=name --format=csv,noheader; LD_LIBRARY_PATH=/tmp/basefb/lib /tmp/basefb/fb --version
