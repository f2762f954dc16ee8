// The variant contract: one shape for every implementation of an op (naive, fused_recurrent, chunk, the cpu
// reference). A variant says what it supports and provides a forward and a backward; nothing else.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernels/common/problem.h"
#include "kernels/common/tensor.h"

namespace flabench {

enum class Backend { cuda, cpu };

std::string_view backend_name(Backend backend);

// What the device offers, for the support decisions that depend on it.
struct DeviceLimits {
  std::size_t shared_memory_per_block = 0;  // the opt-in maximum of dynamic shared memory
  int compute_capability = 0;               // 90 for sm_90; 0 on the cpu backend
  int multiprocessors = 0;                  // SMs; 0 on the cpu backend
};

// The current CUDA device's limits, for the plans a variant makes when it is called: its shared memory a
// block no more than a SharedMemoryCap on this thread allows.
DeviceLimits current_device_limits();

// While one lives, the variants called on this thread plan for at most `bytes` of shared memory a block
// (current_device_limits and within_shared_memory_cap say so): the check battery runs the kernels a GPU with
// less room (an RTX 40xx's 99 KiB) picks on a larger one, which runs every kernel the smaller fits. Caps
// nest; the innermost holds.
class SharedMemoryCap {
 public:
  explicit SharedMemoryCap(std::size_t bytes);
  ~SharedMemoryCap();
  SharedMemoryCap(const SharedMemoryCap&) = delete;
  SharedMemoryCap& operator=(const SharedMemoryCap&) = delete;

 private:
  std::optional<std::size_t> outer_;
};

// `limits` with its shared memory a block no more than this thread's SharedMemoryCap allows.
DeviceLimits within_shared_memory_cap(DeviceLimits limits);

struct Support {
  std::vector<DType> dtypes{DType::fp32, DType::fp16, DType::bf16};
  std::vector<int> chunk_sizes;  // empty: the variant has no chunk size axis
  int default_chunk_size = 0;
  bool backward = true;
  bool tf32 = false;  // fp32 inputs go through tf32 tensor cores (looser fp32 thresholds)
  // The most negative log decay the variant is made for (a chunked kernel may bound it); checks beyond it are
  // skipped with that reason.
  double log_decay_floor = -std::numeric_limits<double>::infinity();
  bool deterministic = true;  // two calls on the same inputs give bitwise equal results
  // Head dims, memory and device limits: the reason the variant cannot run `problem`, or nullopt.
  std::function<std::optional<std::string>(const Problem&, Mode, const DeviceLimits&)> limits;
};

// Tensors live on the variant's backend; `workspace` holds workspace_bytes(problem, mode) bytes. A variant
// launches on `stream` and returns without synchronising (the cpu backend has no stream and runs inline);
// work it forks onto another stream joins `stream` again before the call returns (ForkedStream).
struct ForwardCall {
  const Problem& problem;
  const TensorMap& inputs;
  TensorMap& outputs;
  std::span<std::byte> workspace;
  cudaStream_t stream;
  // The backward that follows may read what the forward leaves in the workspace when this is set;
  // a plain inference forward does not pay for it.
  bool save_for_backward;
};

struct BackwardCall {
  const Problem& problem;
  const TensorMap& inputs;
  const TensorMap& grad_outputs;
  TensorMap& grads;
  std::span<std::byte> workspace;
  cudaStream_t stream;
};

struct Variant {
  std::string op;
  std::string name;
  std::string description;
  Backend backend = Backend::cuda;
  Support support;
  // The scratch a run of `mode` needs on a device with `limits` (unset: none). A forward-only run allocates
  // what a forward without save_for_backward uses; a fwd+bwd run's forward is also called without it, so the
  // regions only the backward reads come after the forward's, never moving them. A variant whose plan
  // depends on the device (which backward runs) sizes for the plan it makes on that device.
  std::function<std::size_t(const Problem&, Mode, const DeviceLimits&)> workspace_bytes;
  std::function<void(const ForwardCall&)> forward;
  std::function<void(const BackwardCall&)> backward;
};

// Why `variant` cannot run `problem` in `mode`, from its declared support, or nullopt when it can.
std::optional<std::string> why_unsupported(const Variant& variant, const Problem& problem, Mode mode,
                                           const DeviceLimits& limits);

}  // namespace flabench
