cd build-part
xz -dc fla-bench-base.xz > fb-base && xz -dc fla-bench.xz > fb-new && chmod +x fb-base fb-new
export LD_LIBRARY_PATH=$PWD/lib
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active
for side in base new; do
  ncu --kernel-name regex:fused_recurrent_fwd_kernel --launch-skip 0 --launch-count 3 --metrics $M ./fb-$side --profile-once --filter '^gsa/fused_recurrent/fwd/bf16/B1-T24576' --preset peer > $OUT/ncu-$side.txt 2>&1
  grep -E "fused_recurrent_fwd_kernel<|wavefronts|conflicts|cycles_elapsed|inst_executed|duration|registers|grid_size|block_size|warps_active" $OUT/ncu-$side.txt | sed 's/(flabench::Pointers.*//' | cut -c1-150
done
./fb-new list --filter '^gsa/fused_recurrent/fwd/bf16/B1-T24576' --preset peer 2>&1 | tail -3
