cd build-part
xz -dc fla-bench.xz > fb && chmod +x fb
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p $OUT/ncu
for shape in "B=4 T=4096 D=64" "B=1 T=24576 D=64" "B=2 T=16384 D=128"; do
  set -- $shape; tag=${1#B=}-${2#T=}-${3#D=}
  timeout 200 ncu --set full --import-source yes -k "regex:fused_recurrent_fwd" --launch-count 1 -o /tmp/fwd-$tag ./fb --filter "^rwkv7/fused_recurrent/fwd/bf16" --axis $1 --axis $2 --axis H=16 --axis $3 --profile-once --no-check --out /tmp/j-$tag.json > /tmp/fwd-$tag.log 2>&1; echo "ncu $tag rc $?"
  ncu --import /tmp/fwd-$tag.ncu-rep --page details > $OUT/ncu/fwd-$tag-details.txt 2>&1
  ncu --import /tmp/fwd-$tag.ncu-rep --page source --csv --print-source sass > $OUT/ncu/fwd-$tag-source.csv 2>&1; gzip -9 $OUT/ncu/fwd-$tag-source.csv
done
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issued Ipc" $OUT/ncu/*details.txt
