#!/bin/bash
# The wgmma branch, call 2a (prepared at stop 98): main's fla-bench (9187731's kernels) extracted on the machine
# for call 2b, which must follow within the warm window (the two bundles do not fit one carry).
# Carry build-part-s98/base.
cd build-part-s98/base; xz -dc fla-bench.xz > fb; chmod +x fb; ls -la fb
