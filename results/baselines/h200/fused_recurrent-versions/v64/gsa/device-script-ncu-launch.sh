cd build-part
xz -dc fla-bench-base.xz > fb-base && xz -dc fla-bench.xz > fb-new && chmod +x fb-base fb-new
export LD_LIBRARY_PATH=$PWD/lib
M=launch__shared_mem_config_size,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,launch__registers_per_thread
for side in base new; do
  ncu --kernel-name regex:fused_recurrent_fwd_kernel --launch-count 2 --metrics $M ./fb-$side --profile-once --filter '^gsa/fused_recurrent/fwd/bf16/B1-T24576' --preset peer 2>&1 | grep -E "fused_recurrent_fwd_kernel<|launch__" | sed 's/(flabench::Pointers.*//' | cut -c1-120
done
