set -x
cd build-part
xz -dc fla-bench-base.xz > fb-base && xz -dc fla-bench.xz > fb-new && chmod +x fb-base fb-new
export LD_LIBRARY_PATH=$PWD/lib
./fb-new check --no-long --filter '/fused_recurrent/|rwkv7' --out $OUT/check.json > $OUT/check.log 2>&1; tail -4 $OUT/check.log
for side in base new; do
  for shape in B4-T4096-H16-K128-V128 B4-T4096-H16-K64-V64; do
    ncu --kernel-name regex:fused_recurrent_fwd --launch-count 1 --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum ./fb-$side --profile-once --filter "^rwkv7/fused_recurrent/fwd/bf16/$shape" > $OUT/ncu-$side-$shape.txt 2>&1
    grep -E "wavefronts|inst_executed|cycles_elapsed" $OUT/ncu-$side-$shape.txt
  done
done
bash ../scripts/ab-rounds.sh ./fb-base ./fb-new $OUT/ab 2 --filter '^(rwkv6|rwkv7|gla|simple_gla)/fused_recurrent/(fwd|fwdbwd)/' --preset peer --no-check --min-time 0.2 --min-samples 5
tail -130 $OUT/ab/rounds.txt
