#include "kernels/common/forked_stream.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "kernels/common/cuda_check.h"

namespace flabench {
namespace {

// kSides side streams of each priority and their three events each per device, made on first use and kept for
// the process: creating them per call would cost more than the overlap saves at small shapes.
struct SideResources {
  cudaStream_t side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr, mark = nullptr;
};

const SideResources& side_resources(int side, SidePriority priority) {
  static std::mutex mutex;
  static std::map<std::tuple<int, int, SidePriority>, SideResources> made;
  int device = 0;
  FLA_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  SideResources& r = made[{device, side, priority}];
  if (r.side == nullptr) {
    int least = 0, greatest = 0;
    FLA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    FLA_CUDA_CHECK(cudaStreamCreateWithPriority(&r.side, cudaStreamNonBlocking,
                                                priority == SidePriority::high ? greatest : least));
    FLA_CUDA_CHECK(cudaEventCreateWithFlags(&r.fork, cudaEventDisableTiming));
    FLA_CUDA_CHECK(cudaEventCreateWithFlags(&r.join, cudaEventDisableTiming));
    FLA_CUDA_CHECK(cudaEventCreateWithFlags(&r.mark, cudaEventDisableTiming));
  }
  return r;
}

// The event order_streams() records, one a device.
cudaEvent_t ordering_event() {
  static std::mutex mutex;
  static std::map<int, cudaEvent_t> made;
  int device = 0;
  FLA_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  cudaEvent_t& event = made[device];
  if (event == nullptr) FLA_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return event;
}

}  // namespace

void order_streams(cudaStream_t before, cudaStream_t after) {
  const cudaEvent_t event = ordering_event();
  FLA_CUDA_CHECK(cudaEventRecord(event, before));
  FLA_CUDA_CHECK(cudaStreamWaitEvent(after, event, 0));
}

ForkedStream::ForkedStream(cudaStream_t stream, int side, SidePriority priority) : stream_(stream) {
  if (side < 0 || side >= kSides) throw std::invalid_argument("ForkedStream: no such side stream");
  const SideResources& r = side_resources(side, priority);
  side_ = r.side, fork_ = r.fork, join_ = r.join, mark_ = r.mark;
  hand_over();
}

// A wait takes the event's record at the time it is enqueued, so one event serves every hand-over.
void ForkedStream::hand_over() {
  FLA_CUDA_CHECK(cudaEventRecord(fork_, stream_));
  FLA_CUDA_CHECK(cudaStreamWaitEvent(side_, fork_, 0));
}

void ForkedStream::mark() {
  FLA_CUDA_CHECK(cudaEventRecord(mark_, side_));
}

void ForkedStream::wait_for_mark() {
  FLA_CUDA_CHECK(cudaStreamWaitEvent(stream_, mark_, 0));
}

ForkedStream::~ForkedStream() {
  if (cudaEventRecord(join_, side_) == cudaSuccess) cudaStreamWaitEvent(stream_, join_, 0);
}

}  // namespace flabench
