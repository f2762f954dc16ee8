// Runs body(i) for i in [0, count) on the host's cores. Each i must write only its own outputs, so the result
// does not depend on the number of threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace flabench {

template <class Body>
void parallel_for(std::int64_t count, Body&& body) {
  const std::int64_t threads =
      std::min<std::int64_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (std::int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  auto worker = [&] {
    for (std::int64_t i = next++; i < count && !failed; i = next++) {
      try {
        body(i);
      } catch (...) {
        if (!failed.exchange(true)) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::int64_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

// body(i) for every i in [0, count), in blocks: for element-wise loops over large tensors.
template <class Body>
void parallel_for_elements(std::int64_t count, Body&& body) {
  constexpr std::int64_t kBlock = 1 << 16;
  parallel_for((count + kBlock - 1) / kBlock, [&](std::int64_t block) {
    const std::int64_t end = std::min(count, (block + 1) * kBlock);
    for (std::int64_t i = block * kBlock; i < end; ++i) body(i);
  });
}

}  // namespace flabench
