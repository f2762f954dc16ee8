#!/bin/bash
# stop 96, call c: the committed binary extracted again for call d (the machine was given back)
cd build-part-s96/base; xz -dc fla-bench.xz > fb; chmod +x fb; ls -la fb
