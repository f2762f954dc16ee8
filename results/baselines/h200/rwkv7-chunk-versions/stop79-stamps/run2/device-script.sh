#!/bin/bash
# stop 79: the local gradients' barrier stamps again, with two more inside the prologue (0: after the
# pair matrices' planes, 1: after decayed_keys' totals and their barrier; the old barriers are 2 on).
bash build-part/run-s79d.sh > /dev/null 2>&1
cp build-part/run-s79e.sh $OUT/stamps/device-script.sh; nvidia-smi -L > $OUT/stamps/gpu.txt
cd $OUT && cat stamps/stamps-*.txt && tar -cJf stamps.tar.xz stamps && rm -rf stamps
