// Two independent launches of one call at once: while a ForkedStream lives, work enqueued on side() starts
// only after everything enqueued on the call's stream before the fork, and when it ends the call's stream
// waits for the side's work. So to the caller the call still runs in order on its one stream (the variant
// contract), and a latency-bound kernel's idle schedulers can take the other launch's warps. Each of kSides
// side streams (of each priority) has one pair of events a device, so one ForkedStream a side at a time per
// device (the harness runs its cases one after another on one host thread); a call may hold one of each side
// at once.
#pragma once

#include <cuda_runtime_api.h>

namespace flabench {

// A side's scheduling priority: a high one's blocks take an SM's freed room before the pending blocks of
// other streams' launches (a long chain that must not wait behind a wide launch's waves).
enum class SidePriority { normal, high };

class ForkedStream {
 public:
  static constexpr int kSides = 6;
  explicit ForkedStream(cudaStream_t stream, int side = 0, SidePriority priority = SidePriority::normal);
  ~ForkedStream();  // joins; never throws (a join that fails leaves its error to the next checked call)
  ForkedStream(const ForkedStream&) = delete;
  ForkedStream& operator=(const ForkedStream&) = delete;

  cudaStream_t side() const { return side_; }
  // Work enqueued on side() from now on starts only after everything enqueued on the call's stream so far:
  // the stages of a pipeline, each handed from the call's stream to the side as it is enqueued.
  void hand_over();
  // The call's stream waits, from when wait_for_mark() is enqueued, for the side's work enqueued before
  // mark(): a later stage that needs the side's early work but not its last.
  void mark();
  void wait_for_mark();

 private:
  cudaStream_t stream_, side_;
  cudaEvent_t fork_, join_, mark_;
};

// Work enqueued on `after` from now on starts only after everything enqueued on `before` so far (both
// streams of one call, e.g. two ForkedStream sides). One event a device serves every call (a wait takes
// the event's record at the time it is enqueued).
void order_streams(cudaStream_t before, cudaStream_t after);

}  // namespace flabench
