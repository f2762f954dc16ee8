#!/bin/bash
# stop 90, call d (the command line as run, on the machine still warm from call c, both builds there): call
# c's A/B rounds again, packed into one file ($OUT/s90d.tar.xz), after call c's rounds hit its timeout and
# its many result files were not returned.
cd build-part-b && export LD_LIBRARY_PATH=$PWD/../build-part-a/lib && R=/tmp/s90d && mkdir -p $R && nvidia-smi --query-gpu=uuid --format=csv > $R/gpu.txt; (timeout 520 bash ../scripts/ab-rounds.sh ../build-part-a/fb ./fb $R/ab 2 --filter '^(gla|rwkv6|simple_gla|gsa|rwkv7)/(chunk/(fwd|fwdbwd)|fused_recurrent/fwdbwd)/fp32/|^gla/chunk/fwdbwd/bf16/' --preset peer --min-time 0.1 --min-samples 5 --no-check > $R/ab-out.txt 2>&1; echo "ab rc $?" >> $R/ab-out.txt); (cd /tmp && tar -cJf $OUT/s90d.tar.xz s90d); tail -n 95 $R/ab-out.txt
