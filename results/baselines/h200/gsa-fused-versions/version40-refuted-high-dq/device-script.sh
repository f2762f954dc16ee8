#!/bin/bash
# gsa version 40: gsa chunk's backward schedule: pass 2's side stream at high priority (FLA_EXP_HIGH), the dq
# pass on a side stream of its own once dz is made (FLA_EXP_DQ); with version 39's 8-warp forward blocks
# (FLA_EXP_OLD=1: 4 warps)
cd build-part; xz -dc fla-bench.xz > fb; chmod +x fb; export LD_LIBRARY_PATH=$PWD/lib
mk() { printf '#!/bin/bash\n%s exec %s/fb "$@"\n' "$2" $PWD > $1; chmod +x $1; }
mk fb-base "FLA_EXP_OLD=1"; mk fb-w8 ""; mk fb-high "FLA_EXP_HIGH=1"; mk fb-dq "FLA_EXP_DQ=1"; mk fb-all "FLA_EXP_HIGH=1 FLA_EXP_DQ=1"
R=$OUT/v40; mkdir -p $R
date
timeout 100 ./fb-all check --filter 'gsa/' --out $R/check-gsa.json > $R/check-gsa.log 2>&1; echo "check rc=$?"; tail -n1 $R/check-gsa.log
grep -E " failed| FAILED|error" $R/check-gsa.log | head -10
date
for round in 1 2; do for b in fb-base fb-w8 fb-high fb-dq fb-all; do
  ./$b run --no-check --filter '^gsa/fused_recurrent/fwdbwd/' --preset B1_T24576_H16_D64 --min-time 0.2 --min-samples 5 --out $R/r$round-$b.json > $R/r$round-$b.log 2>&1
  echo "round $round $b: $(grep -E '^gsa' $R/r$round-$b.log | awk '{printf "%s ", $2}')"
done; done
date
bash ../scripts/ab-rounds.sh ./fb-base ./fb-all $R/ab 2 --filter '^(gsa/(fused_recurrent|chunk)|gla/fused_recurrent)/fwdbwd/' --preset peer --no-check --min-time 0.2 --min-samples 5 > $R/ab.out 2>&1
grep -A50 "^case" $R/ab/rounds.txt | grep -E "case|gsa|gla" ; tail -4 $R/ab/rounds.txt
date
timeout 60 ./fb-all profile --no-check --filter '^gsa/fused_recurrent/fwdbwd/(fp16|fp32)' --preset B1_T24576_H16_D64 --metrics dram__bytes_read.sum --out $R/profile-all.json > $R/profile-all.log 2>&1; echo "profile rc=$?"
date
cd $OUT && tar -cJf v40.tar.xz v40 && rm -rf v40
