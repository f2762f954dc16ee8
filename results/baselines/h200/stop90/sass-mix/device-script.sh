#!/bin/bash
# stop 90, call g (carries build-part-c: chunk version 58's build): the static SASS instruction mix of every
# kernel in fla-bench (cuobjdump -sass, summarised by sass-mix.py), to look for instructions the compiler
# adds around an operation (division and conversion sequences, calls to slow paths) in the hot kernels.
cd "$(dirname "$0")"; [ -x fb ] || { xz -dc fla-bench.xz > fb; chmod +x fb; }
R=/tmp/s90g; mkdir -p $R; cp run-s90g.sh sass-mix.py $R/
date
timeout 240 bash -c "cuobjdump -sass fb | python3 sass-mix.py > $R/sass-mix.jsonl"; echo "sass rc $?"
wc -l $R/sass-mix.jsonl; xz -T8 $R/sass-mix.jsonl
(cd /tmp && tar -cJf $OUT/s90g.tar.xz s90g); date
