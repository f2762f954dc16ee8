#include "kernels/common/forked_stream.h"

#include <map>
#include <mutex>

#include "kernels/common/cuda_check.h"

namespace flabench {
namespace {

// One side stream and its two events per device, made on first use and kept for the process: creating
// them per call would cost more than the overlap saves at small shapes.
struct SideResources {
  cudaStream_t side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
};

const SideResources& side_resources() {
  static std::mutex mutex;
  static std::map<int, SideResources> made;
  int device = 0;
  FLA_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  SideResources& r = made[device];
  if (r.side == nullptr) {
    FLA_CUDA_CHECK(cudaStreamCreateWithFlags(&r.side, cudaStreamNonBlocking));
    FLA_CUDA_CHECK(cudaEventCreateWithFlags(&r.fork, cudaEventDisableTiming));
    FLA_CUDA_CHECK(cudaEventCreateWithFlags(&r.join, cudaEventDisableTiming));
  }
  return r;
}

}  // namespace

ForkedStream::ForkedStream(cudaStream_t stream) : stream_(stream) {
  const SideResources& r = side_resources();
  side_ = r.side, fork_ = r.fork, join_ = r.join;
  hand_over();
}

// A wait takes the event's record at the time it is enqueued, so one event serves every hand-over.
void ForkedStream::hand_over() {
  FLA_CUDA_CHECK(cudaEventRecord(fork_, stream_));
  FLA_CUDA_CHECK(cudaStreamWaitEvent(side_, fork_, 0));
}

ForkedStream::~ForkedStream() {
  if (cudaEventRecord(join_, side_) == cudaSuccess) cudaStreamWaitEvent(stream_, join_, 0);
}

}  // namespace flabench
