// rwkv7's chunk variant: the forward in chunk form (WY representation, ops.md §3.3) in three steps:
// chunk_intra.cuh (per chunk, in parallel; chunk_intra_mma.cuh on the tensor cores for 16-bit inputs),
// chunk_states.cuh (the scan over chunks; chunk_states_mma.cuh on the tensor cores for bf16 inputs),
// chunk_output.cuh (per chunk, in parallel), with every intermediate in fp32 (kernels/notes/rwkv7_chunk.md
// says why; for bf16 inputs W, k~ and b~ are kept as two bf16 parts, about 16 bits, for the tensor cores);
// over long sequences in pieces of chunks, the three steps on streams of their own, so that the scan's chain
// runs beside the other steps (forward_pieces, chunk_states_plan.h).
// The backward, where few heads leave the fused one's grid short of the SMs, in chunk form: the state
// gradient's scan in reverse (chunk_backward_states.cuh), then every input's gradient per chunk in parallel
// (chunk_backward_local.cuh, then per key channel chunk_backward_channels.cuh), from what the forward saves
// (the states at the chunks' starts, V_new, its intermediates, X and A_ak), at few heads in pieces of chunks
// from the sequence's end with the scan on a stream of its own (backward_pieces); elsewhere
// fused_recurrent's, on the states and a^T S_{t-1} terms this forward saves where that backward reads them
// (chunk_workspace.h). The chunked backward also serves fused_recurrent's fwd+bwd, after its scan
// (backward_in_chunks.h).
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/common/constant_dispatch.h"
#include "kernels/common/forked_stream.h"
#include "kernels/common/format.h"
#include "kernels/rwkv7/backward_in_chunks.h"
#include "kernels/rwkv7/chunk_backward_channels.cuh"
#include "kernels/rwkv7/chunk_backward_local_mma.cuh"
#include "kernels/rwkv7/chunk_backward_states.cuh"
#include "kernels/rwkv7/chunk_backward_states_mma.cuh"
#include "kernels/rwkv7/chunk_intra.cuh"
#include "kernels/rwkv7/chunk_intra_mma.cuh"
#include "kernels/rwkv7/chunk_output.cuh"
#include "kernels/rwkv7/chunk_states.cuh"
#include "kernels/rwkv7/chunk_states_mma.cuh"
#include "kernels/rwkv7/rwkv7.h"
#include "profiles/nvtx_range.h"

namespace flabench {
namespace rwkv7 {
namespace {

constexpr int kMaxGridRows = 65535;  // a grid's y dimension

// The most shared memory a block of any step of the forward needs (the state pass with one operand buffer;
// bf16's on the tensor cores).
std::size_t shared_bytes(const Problem& p) {
  const int C = p.chunk_size, K = int(p.K), input_bytes = int(dtype_size(p.dtype));
  const std::size_t states = p.dtype == DType::bf16
                                 ? std::size_t(mma_states_shared_bytes(C, K, kStateColumns, 1))
                                 : sizeof(float) * states_shared_floats(C, K, input_bytes, kStateColumns, 1);
  const std::size_t intra =
      input_bytes == 2 ? std::size_t(intra_mma_shared_bytes(C, K)) : sizeof(float) * intra_shared_floats(C);
  return std::max({intra, states, std::size_t(output_shared_bytes(C, K, p.dtype == DType::bf16))});
}

// Whether the backward's reverse scan runs on the tensor cores (chunk_backward_states_mma.cuh): for bf16
// inputs, where its block at the forward state pass's columns fits the device; else the CUDA-core scan.
bool reverse_scan_on_tensor_cores(const ChunkDims& d, DType dtype, const DeviceLimits& device) {
  if (dtype != DType::bf16) return false;
  const std::size_t limit = device.shared_memory_per_block;
  const int columns =
      state_columns(std::int64_t(d.B) * d.H, d.K, d.V, d.C, true, device.multiprocessors, limit);
  return std::size_t(mma_dstate_shared_bytes(d.C, d.K, columns, 1)) <= limit;
}

// Whether the backward is the chunked one, from the device's limits (so that workspace_bytes takes its
// regions only where it runs). Measured at the peer shapes (kernels/notes/rwkv7_chunk.md, v20, v28 and stop
// 52's rule), it is the faster where the fused backward's blocks (a head's 16 value columns each) are fewer
// than the SMs (1,24576,16,64: 64 on 132), and, with its reverse scan on the tensor cores (bf16), in chunks
// of 32 (0.89-0.92x the fused one's fwd+bwd at K = 64 and many heads) and at K = 128 (0.82-0.92x at C = 64;
// at C = 16 and 32 since v28); elsewhere the fused one runs (at K = 64 and many heads the chunked one is
// 1.03-1.04x slower at C = 16 and 1.2-1.25x at C = 64). Either needs the device's shared memory to hold its
// blocks (Ada's 99 KiB take C = 64 at K = 64 only so).
bool chunked_backward(const ChunkDims& d, DType dtype, const DeviceLimits& device) {
  const int input_bytes = int(dtype_size(dtype));
  const std::size_t limit = device.shared_memory_per_block;
  const std::size_t shared =
      std::max({sizeof(float) * dstate_shared_floats(d.C, d.K, input_bytes, kStateColumns, 1),
                std::size_t(local_shared_bytes(d.C, d.K, input_bytes, dtype == DType::fp16 ? 2 : 1)),
                sizeof(float) * channel_shared_floats(d.C, input_bytes)});
  const bool faster_on_tensor_cores =
      (d.K >= 128 || d.C == 32) && reverse_scan_on_tensor_cores(d, dtype, device);
  return (few_heads(std::int64_t(d.B) * d.H, d.V, device.multiprocessors) || faster_on_tensor_cores) &&
         shared <= limit;
}

// The workspace's layout on this device: a bf16 forward's planes also in fp32 only where the chunked
// backward's reverse scan runs on the CUDA cores (the tensor-core one and the local gradients read the
// planes).
ChunkWorkspace workspace_layout(const Problem& p, const DeviceLimits& device) {
  return ChunkWorkspace(
      p, p.dtype == DType::bf16 && !reverse_scan_on_tensor_cores(chunk_dims(p), p.dtype, device));
}

// f(std::bool_constant<copy_warps>) for the tensor-core state passes at K = 16 KQ, instantiating their
// kernels without copy warps only at K = 128, the one place mma_state_copy_warps may say so.
template <int KQ, class F>
void with_copy_warps(bool copy_warps, const F& f) {
  if constexpr (KQ == 8) {
    if (!copy_warps) return f(std::false_type{});
  }
  f(std::true_type{});
}

// The operand buffers a tensor-core state pass's `kernel` runs with: `buffers` (what fits a block), but one
// where that takes its grid of `blocks` in fewer waves (state_buffers); bytes(n) is its block's shared memory
// with n, which the kernel is allowed.
template <class Kernel, class Bytes>
int buffers_in_fewest_waves(Kernel kernel, int threads, const Bytes& bytes, int buffers, std::int64_t blocks,
                            int sms) {
  allow_shared_memory(kernel, bytes(buffers));
  if (buffers != 2) return buffers;
  return state_buffers(blocks, sms, resident_blocks(kernel, threads, bytes(1)),
                       resident_blocks(kernel, threads, bytes(2)));
}

IntraOutputs intra_outputs(float* workspace, const ChunkWorkspace& ws) {
  return {workspace + ws.qk, workspace + ws.qb, workspace + ws.w,     workspace + ws.u,
          workspace + ws.kg, workspace + ws.bg, workspace + ws.decay, workspace + ws.qg};
}

// Three steps over the chunks in `pieces` pieces of consecutive chunks, first to last or, `from_the_end`,
// last to first: a piece's `first` step on the call's stream, its `scan` step on a high-priority side stream
// after that and the piece before it, its `last` step on another side stream after its scan. So a scan's
// chain of latency-bound steps runs beside the other pieces' full-GPU work (the side's high priority gives
// its blocks an SM's freed room first). One piece: the three in order on the call's stream (forking costs a
// small call a few microseconds).
template <class First, class Scan, class Last>
void run_in_pieces(cudaStream_t stream, int chunks, int pieces, bool from_the_end, const First& first,
                   const Scan& scan, const Last& last) {
  if (pieces == 1) {
    const ChunkRange all{0, chunks};
    first(all, stream), scan(all, stream), last(all, stream);
    return;
  }
  ForkedStream scan_side(stream, 0, SidePriority::high), last_side(stream, 1);
  for (int i = 0; i < pieces; ++i) {
    const int k = from_the_end ? pieces - 1 - i : i;
    const ChunkRange range{chunks * k / pieces, chunks * (k + 1) / pieces};
    first(range, stream);
    scan_side.hand_over();
    scan(range, scan_side.side());
    order_streams(scan_side.side(), last_side.side());
    last(range, last_side.side());
  }
}

// Intra's step over the chunks in `range`: the per-chunk matrices and factors into `intra`.
template <class T>
void launch_intra(const Pointers<T>& pointers, const ChunkDims& d, ChunkRange range,
                  const IntraOutputs& intra, cudaStream_t stream) {
  const NvtxRange nvtx("intra");
  with_one_of<16, 32, kMaxChunk>(d.C, [&](auto chunk) {
    constexpr int C = decltype(chunk)::value;
    const auto launch = [&](auto kernel, std::size_t shared) {
      allow_shared_memory(kernel, shared);
      kernel<<<dim3(range.count(), d.B * d.H), kThreads, shared, stream>>>(pointers, d, range, intra);
    };
    // 16-bit inputs on the tensor cores (two-part operands keep ~16 bits); fp32 keeps fp32 products.
    if constexpr (sizeof(T) == 2)
      launch(rwkv7_chunk_intra_mma_kernel<T, C>, intra_mma_shared_bytes(C, d.K));
    else
      launch(rwkv7_chunk_intra_kernel<T, C>, sizeof(float) * intra_shared_floats(C));
  });
  FLA_CUDA_CHECK_LAUNCH();
}

// What intra writes where the chunked backward follows: also X and A_ak, and where that backward's reverse
// scan runs on the CUDA cores, W, b~, A_qb and q e^Γ in fp32 (a bf16 forward holds them as planes).
template <class T>
IntraOutputs intra_outputs_for_chunked_backward(float* workspace, const ChunkWorkspace& ws,
                                                const ChunkDims& d, const DeviceLimits& device) {
  IntraOutputs intra = intra_outputs(workspace, ws);
  intra.x = workspace + ws.x, intra.ak = workspace + ws.ak;
  if (std::is_same_v<T, __nv_bfloat16> && !reverse_scan_on_tensor_cores(d, DType::bf16, device)) {
    intra.w_fp32 = workspace + ws.w32, intra.bg_fp32 = workspace + ws.bg32;
    intra.qb_fp32 = workspace + ws.qb32, intra.qg_fp32 = workspace + ws.qg32;
  }
  return intra;
}

template <class T>
void forward(const ForwardCall& call) {
  const Problem& p = call.problem;
  const ChunkDims d = chunk_dims(p);
  Pointers<T> pointers = bind_inputs<T>(kRwkv7Binding, call.inputs);
  pointers.o = call.outputs.at(kRwkv7Binding.o).as<T>();
  pointers.ht = call.outputs.at(kRwkv7Binding.ht).as<float>();
  float* workspace = reinterpret_cast<float*>(call.workspace.data());
  const DeviceLimits device = current_device_limits();
  const ChunkWorkspace ws = workspace_layout(p, device);
  // What the backward reads: the chunked one, intra's extra outputs and the states at the chunks' starts; the
  // fused one, the states before every 16th token.
  const bool chunked = call.save_for_backward && chunked_backward(d, p.dtype, device);
  const bool every_checkpoint = call.save_for_backward && !chunked;
  const IntraOutputs intra = chunked ? intra_outputs_for_chunked_backward<T>(workspace, ws, d, device)
                                     : intra_outputs(workspace, ws);
  float *states = workspace + ws.checkpoints, *sa = workspace + ws.sa;
  const int heads = d.B * d.H;
  const auto intra_step = [&](ChunkRange range, cudaStream_t stream) {
    launch_intra(pointers, d, range, intra, stream);
  };
  // The state pass's kernel, block and operand buffers, planned once for every piece (its two occupancy
  // queries are host work a piece need not repeat; allow_shared_memory remembers what it granted, so the
  // other steps call it per piece at the cost of a lookup).
  using StatesKernel = void (*)(Pointers<T>, ChunkDims, ChunkRange, IntraOutputs, float*, float*, bool, int);
  struct {
    StatesKernel kernel = nullptr;
    dim3 grid;
    int threads = 0, buffers = 0;
    std::size_t shared = 0;
  } states_plan;
  {
    constexpr bool kTensorCores = std::is_same_v<T, __nv_bfloat16>;  // chunk_states_mma.cuh; else CUDA cores
    const std::size_t shared_limit = device.shared_memory_per_block;
    const int sms = device.multiprocessors;
    const auto plan = [&](auto cols) {
      constexpr int COLS = decltype(cols)::value;
      int buffers = kTensorCores ? mma_operand_buffers(d.C, d.K, COLS, shared_limit)
                                 : operand_buffers(d.C, d.K, sizeof(T), COLS, shared_limit);
      states_plan.grid = dim3(d.V / COLS, heads);
      with_one_of<1, 2, 4, 8>(d.K / 16, [&](auto groups) {  // K / 16
        constexpr int KQ = decltype(groups)::value;
        if constexpr (kTensorCores) {
          const std::int64_t blocks = std::int64_t(heads) * (d.V / COLS);
          with_copy_warps<KQ>(mma_state_copy_warps(KQ, blocks, sms), [&](auto copy_warps) {
            constexpr bool kCopyWarps = decltype(copy_warps)::value;
            auto kernel = rwkv7_chunk_states_mma_kernel<KQ, COLS, kCopyWarps>;
            const int threads = mma_state_threads(KQ, kCopyWarps);
            const auto bytes = [&](int count) {
              return std::size_t(mma_states_shared_bytes(d.C, d.K, COLS, count));
            };
            buffers = buffers_in_fewest_waves(kernel, threads, bytes, buffers, blocks, sms);
            states_plan.kernel = kernel, states_plan.threads = threads;
            states_plan.shared = bytes(buffers);
          });
        } else {
          auto kernel = rwkv7_chunk_states_kernel<T, KQ, COLS>;
          states_plan.shared = sizeof(float) * states_shared_floats(d.C, d.K, sizeof(T), COLS, buffers);
          allow_shared_memory(kernel, states_plan.shared);
          states_plan.kernel = kernel, states_plan.threads = state_threads(COLS);
        }
        states_plan.buffers = buffers;
      });
    };
    const int columns = pieced_scan_columns(heads, d.K, d.V, d.C, kTensorCores, sms, shared_limit,
                                            forward_pieces(heads, d.V, d.chunks, sms),
                                            mma_states_shared_bytes(d.C, d.K, kStateColumns, 1));
    if constexpr (kTensorCores)
      with_one_of<kStateColumns, kNarrowStateColumns, kWideStateColumns>(columns, plan);
    else
      with_one_of<kStateColumns, kNarrowStateColumns>(columns, plan);  // state_columns' CUDA-core picks
  }
  const auto states_step = [&](ChunkRange range, cudaStream_t stream) {
    const NvtxRange nvtx("states");
    states_plan.kernel<<<states_plan.grid, states_plan.threads, states_plan.shared, stream>>>(
        pointers, d, range, intra, states, sa, every_checkpoint, states_plan.buffers);
    FLA_CUDA_CHECK_LAUNCH();
  };
  const auto output_step = [&](ChunkRange range, cudaStream_t stream) {
    const NvtxRange nvtx("outputs");
    const std::size_t shared = output_shared_bytes(d.C, d.K, std::is_same_v<T, __nv_bfloat16>);
    with_one_of<16, 32, kMaxChunk>(d.C, [&](auto chunk) {
      auto kernel = rwkv7_chunk_output_kernel<T, decltype(chunk)::value>;
      allow_shared_memory(kernel, shared);
      kernel<<<dim3(range.count() * (d.V / output_columns(d.V)), heads), kThreads, shared, stream>>>(
          pointers, d, range, states, sa, intra);
    });
    FLA_CUDA_CHECK_LAUNCH();
  };
  run_in_pieces(call.stream, d.chunks, forward_pieces(heads, d.V, d.chunks, device.multiprocessors), false,
                intra_step, states_step, output_step);
}

// Enqueues nothing for a range of chunks (run_chunked_backward's before_piece where the forward saved all).
constexpr auto no_work = [](ChunkRange, cudaStream_t) {};

// The chunked backward's kernels (call.problem's chunk size), on what its forward saved in the workspace and
// what before_piece(range, stream) enqueues for a range of chunks ahead of that range's steps
// (fused_recurrent's intra; the chunk variant's forward saved all it reads: no_work). Over pieces of chunks
// from the sequence's end, each step on a stream of its own: a piece's reverse scan waits for the piece after
// it, its local and channel gradients for its scan, so the scan's chain runs beside the later pieces'
// gradients and the earlier pieces' before_piece work.
template <class T, class BeforePiece>
void run_chunked_backward(const BackwardCall& call, const DeviceLimits& device,
                          const BeforePiece& before_piece) {
  const Problem& p = call.problem;
  const ChunkDims d = chunk_dims(p);
  const Pointers<T> pointers = bind_inputs<T>(kRwkv7Binding, call.inputs);
  const GradPointers<T> grads = bind_grads<T>(kRwkv7Binding, call.grad_outputs, call.grads);
  float* workspace = reinterpret_cast<float*>(call.workspace.data());
  const ChunkWorkspace ws = workspace_layout(p, device);
  IntraOutputs intra = intra_outputs(workspace, ws);
  const IntraOutputs planes = intra;  // for bf16 inputs the forward's planes, which the tensor cores read
  intra.x = workspace + ws.x, intra.ak = workspace + ws.ak;
  // the CUDA-core scan's fp32 copies of what a bf16 forward holds as planes (A_qk stays planes: the local
  // gradients read them)
  if (std::is_same_v<T, __nv_bfloat16> && !reverse_scan_on_tensor_cores(d, p.dtype, device)) {
    intra.w = workspace + ws.w32, intra.bg = workspace + ws.bg32;
    intra.qb = workspace + ws.qb32, intra.qg = workspace + ws.qg32;
  }
  const BackwardRegions regions{workspace + ws.checkpoints, workspace + ws.sa,
                                workspace + ws.dstates,     workspace + ws.dvnew,
                                workspace + ws.pairs,       workspace + ws.terms,
                                workspace + ws.scratch,     (ws.total - ws.scratch) / ws.slots};
  const int heads = d.B * d.H, sms = device.multiprocessors;
  const int pieces = backward_pieces(heads, d.V, d.chunks, sms);
  const auto states_step = [&](ChunkRange chunks, cudaStream_t stream) {
    const NvtxRange range("backward states");
    const std::size_t shared_limit = device.shared_memory_per_block;
    const auto columns = [&](bool tensor_cores) {
      return pieced_scan_columns(heads, d.K, d.V, d.C, tensor_cores, sms, shared_limit, pieces,
                                 mma_dstate_shared_bytes(d.C, d.K, kStateColumns, 1));
    };
    const bool tensor_cores = reverse_scan_on_tensor_cores(d, p.dtype, device);
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      if (tensor_cores)
        with_one_of<kStateColumns, kNarrowStateColumns, kWideStateColumns>(columns(true), [&](auto cols) {
          constexpr int COLS = decltype(cols)::value;
          const auto bytes = [&](int count) {
            return std::size_t(mma_dstate_shared_bytes(d.C, d.K, COLS, count));
          };
          with_one_of<1, 2, 4, 8>(d.K / 16, [&](auto groups) {
            constexpr int KQ = decltype(groups)::value;
            const std::int64_t blocks = std::int64_t(heads) * (d.V / COLS);
            with_copy_warps<KQ>(mma_state_copy_warps(KQ, blocks, sms), [&](auto copy_warps) {
              constexpr bool kCopyWarps = decltype(copy_warps)::value;
              auto kernel = rwkv7_chunk_dstates_mma_kernel<KQ, COLS, kCopyWarps>;
              const int threads = mma_state_threads(KQ, kCopyWarps);
              // the forward state pass's rule (v49: 4,4096,16,128's 256 blocks in one wave, two an SM)
              const int buffers = buffers_in_fewest_waves(
                  kernel, threads, bytes, mma_dstate_buffers(d.C, d.K, COLS, shared_limit), blocks, sms);
              kernel<<<dim3(d.V / COLS, heads), threads, bytes(buffers), stream>>>(grads, d, chunks, planes,
                                                                                   regions, buffers);
            });
          });
        });
    }
    if (!tensor_cores)
      with_one_of<kStateColumns, kNarrowStateColumns>(columns(false), [&](auto cols) {
        constexpr int COLS = decltype(cols)::value;
        const int buffers = dstate_buffers(d.C, d.K, sizeof(T), COLS, shared_limit);
        const std::size_t shared = sizeof(float) * dstate_shared_floats(d.C, d.K, sizeof(T), COLS, buffers);
        with_one_of<1, 2, 4, 8>(d.K / 16, [&](auto groups) {
          auto kernel = rwkv7_chunk_dstates_kernel<T, decltype(groups)::value, COLS>;
          allow_shared_memory(kernel, shared);
          kernel<<<dim3(d.V / COLS, heads), state_threads(COLS), shared, stream>>>(grads, d, chunks, intra,
                                                                                   regions, buffers);
        });
      });
    FLA_CUDA_CHECK_LAUNCH();
  };
  const auto local_step = [&](ChunkRange chunks, cudaStream_t stream) {
    const NvtxRange range("backward local");
    // fp32 inputs' products in 3xTF32, 16-bit inputs' as two-part bf16 operands, both on the tensor cores
    const auto launch = [&](auto kernel, std::size_t shared, int threads) {
      allow_shared_memory(kernel, shared);
      const int resident = std::max(resident_blocks(kernel, threads, shared), 1);
      const int blocks = int(std::min<std::size_t>(ws.slots, std::size_t(resident) * sms));
      kernel<<<blocks, threads, shared, stream>>>(pointers, grads, d, chunks, intra, regions);
    };
    if constexpr (std::is_same_v<T, float>) {
      launch(rwkv7_chunk_local_grads_kernel,
             std::size_t(local_shared_bytes(d.C, d.K, sizeof(T), chunk::kStateOperandParts<T>)), kThreads);
    } else {
      // Value slices of kWideLocalSlice columns where two blocks of them fit an SM (the products' sums over
      // the slices then go through the workspace half as often, v34), for bf16 also where one block of twice
      // the threads does (v35); else kLocalSlice.
      constexpr int kParts = chunk::kStateOperandParts<T>;
      with_one_of<16, 32, kMaxChunk>(d.C, [&](auto chunk) {
        constexpr int C = decltype(chunk)::value;
        auto wide = rwkv7_chunk_local_grads_mma_kernel<T, C, kWideLocalSlice>;
        const std::size_t wide_bytes = local_mma_plan(C, d.K, kParts, kWideLocalSlice).bytes;
        const auto narrow = [&] {
          launch(rwkv7_chunk_local_grads_mma_kernel<T, C, kLocalSlice>,
                 std::size_t(local_mma_plan(C, d.K, kParts).bytes), kThreads);
        };
        if (d.V % kWideLocalSlice != 0 || wide_bytes > device.shared_memory_per_block)
          narrow();
        else if (resident_blocks(wide, kThreads, wide_bytes) >= 2)  // (it allows the kernel the bytes)
          launch(wide, wide_bytes, kThreads);
        else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
          // That block keeps the slices' sums in shared memory between them where V takes two slices or more
          // and they fit beside its plan (v69). Built for C = 32, where it was measured (K = 128); at C = 16
          // two blocks an SM take the wide slices, and at C = 64 the sums fit only below K = 64 (not built).
          if constexpr (C == 32) {
            const std::size_t held_bytes = wide_bytes + local_held_bytes(C, d.K);
            if (d.V > kWideLocalSlice && held_bytes <= device.shared_memory_per_block)
              return launch(rwkv7_chunk_local_grads_mma_kernel<T, C, kWideLocalSlice, 2 * kThreads, true>,
                            held_bytes, 2 * kThreads);
          }
          launch(rwkv7_chunk_local_grads_mma_kernel<T, C, kWideLocalSlice, 2 * kThreads>, wide_bytes,
                 2 * kThreads);
        } else
          narrow();
      });
    }
    FLA_CUDA_CHECK_LAUNCH();
  };
  const auto channel_step = [&](ChunkRange chunks, cudaStream_t stream) {
    const NvtxRange range("backward channels");
    const std::size_t shared = sizeof(float) * channel_shared_floats(d.C, sizeof(T));
    with_one_of<16, 32, kMaxChunk>(d.C, [&](auto chunk) {
      auto kernel = rwkv7_chunk_channel_grads_kernel<T, decltype(chunk)::value>;
      allow_shared_memory(kernel, shared);
      kernel<<<dim3(chunks.count(), heads), kThreads, shared, stream>>>(pointers, grads, d, chunks, regions);
    });
    FLA_CUDA_CHECK_LAUNCH();
  };
  run_in_pieces(
      call.stream, d.chunks, pieces, true, before_piece, states_step,
      [&](ChunkRange range, cudaStream_t stream) { local_step(range, stream), channel_step(range, stream); });
}

template <class T>
void backward(const BackwardCall& call) {
  const DeviceLimits device = current_device_limits();
  if (chunked_backward(chunk_dims(call.problem), call.problem.dtype, device))
    return run_chunked_backward<T>(call, device, no_work);
  static const auto scan = scan_backward();  // built once, not per timed call
  const BackwardCall on_scan_workspace{
      call.problem,
      call.inputs,
      call.grad_outputs,
      call.grads,
      call.workspace.subspan(sizeof(float) * workspace_layout(call.problem, device).fused_base),
      call.stream};
  scan(on_scan_workspace);
}

// What keeps the forward from `p` on `device`, if anything (limits says it in words; backward_in_chunks,
// asked on every call of fused_recurrent, needs only whether).
enum class Refusal { none, chunk_size, head_dims, grid_rows, shared_memory };
Refusal forward_refusal(const Problem& p, const DeviceLimits& device) {
  const auto head_dim = [](std::int64_t n) { return n == 16 || n == 32 || n == 64 || n == 128; };
  if (p.chunk_size != 16 && p.chunk_size != 32 && p.chunk_size != kMaxChunk) return Refusal::chunk_size;
  if (!head_dim(p.K) || !head_dim(p.V)) return Refusal::head_dims;
  // Every step's grid takes (batch, head) as its y index, which CUDA caps at 65535.
  if (p.B * p.H > kMaxGridRows) return Refusal::grid_rows;
  if (shared_bytes(p) > device.shared_memory_per_block) return Refusal::shared_memory;
  return Refusal::none;
}

std::optional<std::string> limits(const Problem& p, Mode mode, const DeviceLimits& device) {
  switch (forward_refusal(p, device)) {
    case Refusal::chunk_size:
      return format("chunk takes chunk sizes 16, 32 and 64, not %d", p.chunk_size);
    case Refusal::head_dims:
      return format(
          "chunk takes K and V in {16, 32, 64, 128} (a chunk's tiles of either stay in shared memory), not "
          "K=%lld V=%lld",
          static_cast<long long>(p.K), static_cast<long long>(p.V));
    case Refusal::grid_rows:
      return format("chunk takes a grid row per (batch, head), at most %d: B*H = %lld", kMaxGridRows,
                    static_cast<long long>(p.B * p.H));
    case Refusal::shared_memory:
      return format(
          "chunk needs %zu KiB of shared memory per block at C=%d K=%lld, the device allows %zu KiB",
          shared_bytes(p) / 1024, p.chunk_size, static_cast<long long>(p.K),
          device.shared_memory_per_block / 1024);
    case Refusal::none:
      break;
  }
  if (mode == Mode::fwdbwd) return rwkv7_fused_recurrent_variant().support.limits(p, mode, device);
  return std::nullopt;
}

// fused_recurrent's problem as the chunked backward after its scan takes it: in chunks of kBackwardChunk.
Problem in_chunks(const Problem& p) {
  Problem chunked = p;
  chunked.chunk_size = kBackwardChunk;
  return chunked;
}

}  // namespace

// Where the chunk variant's chunked backward runs (for fp16 few heads only), but for fp32 inputs: no faster
// than the scan's, with its products on the CUDA cores (fused_recurrent.md, version 58) or, its local and
// channel products, in 3xTF32 (version 79: 1.08x slower at 1,24576,16,64, where alone it would run).
bool backward_in_chunks(const Problem& p, const DeviceLimits& device) {
  const Problem chunked = in_chunks(p);
  return p.dtype != DType::fp32 && forward_refusal(chunked, device) == Refusal::none &&
         chunked_backward(chunk_dims(chunked), p.dtype, device);
}

std::size_t backward_in_chunks_workspace_bytes(const Problem& p, const DeviceLimits& device) {
  return sizeof(float) * workspace_layout(in_chunks(p), device).backward_total(true);
}

std::size_t scan_workspace_offset(const Problem& p, const DeviceLimits& device) {
  return sizeof(float) * workspace_layout(in_chunks(p), device).fused_base;
}

void run_backward_in_chunks(const BackwardCall& call) {
  static const auto run = by_dtype<BackwardCall>([](auto tag, const BackwardCall& call) {
    using T = decltype(tag);
    const Problem chunked = in_chunks(call.problem);
    const DeviceLimits device = current_device_limits();
    const ChunkDims d = chunk_dims(chunked);
    float* workspace = reinterpret_cast<float*>(call.workspace.data());
    IntraOutputs intra =
        intra_outputs_for_chunked_backward<T>(workspace, workspace_layout(chunked, device), d, device);
    intra.u = intra.kg = nullptr;  // the state pass's operands: the scan made the states
    const Pointers<T> inputs = bind_inputs<T>(kRwkv7Binding, call.inputs);
    // intra a piece at a time, ahead of the piece's reverse scan (whole before them: 1.007x at 4 pieces, v70)
    run_chunked_backward<T>(
        {chunked, call.inputs, call.grad_outputs, call.grads, call.workspace, call.stream}, device,
        [&](ChunkRange range, cudaStream_t stream) { launch_intra(inputs, d, range, intra, stream); });
  });
  run(call);
}

}  // namespace rwkv7

Variant rwkv7_chunk_variant() {
  Variant variant;
  variant.op = "rwkv7";
  variant.name = "chunk";
  variant.description =
      "chunkwise (WY form, intermediates fp32; fp32 operands in two bf16 parts on the tensor cores for the "
      "per-chunk matrices of 16-bit inputs and the state and output passes of bf16's): per-chunk matrices "
      "and (I - A_ab)^-1 in parallel, a scan over the chunks for the states, the outputs per chunk in "
      "parallel; the backward in chunk form (a reverse scan for the state gradient, on the tensor cores for "
      "bf16, then every input's gradient per chunk) where few heads leave the fused one short of SMs or, for "
      "bf16, at K = 128 in chunks of 16 or 32; else fused_recurrent's on the states this forward saves";
  variant.backend = Backend::cuda;
  variant.support.chunk_sizes = {16, 32, 64};
  variant.support.default_chunk_size = 32;  // the fastest at every peer shape (kernels/notes/rwkv7_chunk.md)
  variant.support.limits = rwkv7::limits;
  variant.workspace_bytes = [](const Problem& p, Mode mode, const DeviceLimits& device) {
    const rwkv7::ChunkWorkspace w = rwkv7::workspace_layout(p, device);
    if (mode == Mode::fwd) return w.forward_total() * sizeof(float);
    return w.backward_total(rwkv7::chunked_backward(rwkv7::chunk_dims(p), p.dtype, device)) * sizeof(float);
  };
  variant.forward =
      by_dtype<ForwardCall>([](auto tag, const ForwardCall& call) { rwkv7::forward<decltype(tag)>(call); });
  variant.backward = by_dtype<BackwardCall>(
      [](auto tag, const BackwardCall& call) { rwkv7::backward<decltype(tag)>(call); });
  return variant;
}

}  // namespace flabench
