#!/bin/bash
# stop 96, call g0: version 98's binary (the committed HEAD's kernels) extracted for call g's A/B base
cd build-part-s96/new2; xz -dc fla-bench.xz > fb; chmod +x fb; ls -la fb
