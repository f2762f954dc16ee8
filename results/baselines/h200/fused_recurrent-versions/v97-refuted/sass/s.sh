#!/bin/bash
# stop 96: SASS of the gla (8 keys) and rwkv7 (16 keys, two columns) plain bf16 forwards, committed vs version 97
cd build-part-s96/sass
for v in base v97 v97b; do cuobjdump -sass $v.cubin > $OUT/$v.sass 2>&1; echo "$v $(wc -l < $OUT/$v.sass)"; done
