// The host as a device: the cpu backend runs the fp64 references, so the pipeline works without a GPU.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "suites/device.h"

namespace flabench {
namespace {

class SteadyClockTimer : public IntervalTimer {
 public:
  void start() override { start_ = std::chrono::steady_clock::now(); }
  void stop() override { stop_ = std::chrono::steady_clock::now(); }
  double elapsed_ms() override { return std::chrono::duration<double, std::milli>(stop_ - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_, stop_;
};

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  return "unknown cpu";
}

class CpuDevice : public Device {
 public:
  CpuDevice() {
    record_.backend = "cpu";
    record_.name = cpu_model();
    record_.sm_count = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    record_.memory_bytes =
        static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    record_.bandwidth_measured_gbs = measure_copy_bandwidth();
  }

  Backend backend() const override { return Backend::cpu; }
  const DeviceRecord& record() const override { return record_; }
  DeviceLimits limits() const override { return {std::size_t(1) << 40, 0}; }

  void* allocate(std::size_t bytes) override { return ::operator new(bytes, std::align_val_t(64)); }
  void release(void* pointer) noexcept override { ::operator delete(pointer, std::align_val_t(64)); }
  void upload(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void fill(void* dst, unsigned char byte, std::size_t bytes) override { std::memset(dst, byte, bytes); }
  void flush_l2() override {}
  cudaStream_t stream() const override { return nullptr; }
  void synchronize() override {}
  std::unique_ptr<IntervalTimer> make_timer() override { return std::make_unique<SteadyClockTimer>(); }

 private:
  // Median of five 64 MiB memcpy calls, bytes read + written: the host's share of a byte floor.
  static double measure_copy_bandwidth() {
    const std::size_t bytes = std::size_t(64) << 20;
    std::vector<char> source(bytes, 1), target(bytes);
    std::vector<double> seconds;
    for (int i = 0; i < 6; ++i) {
      const auto start = std::chrono::steady_clock::now();
      std::memcpy(target.data(), source.data(), bytes);
      const auto stop = std::chrono::steady_clock::now();
      if (i > 0) seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    return 2.0 * static_cast<double>(bytes) / seconds[seconds.size() / 2] / 1e9;
  }

  DeviceRecord record_;
};

}  // namespace

std::unique_ptr<Device> open_cpu_device() {
  return std::make_unique<CpuDevice>();
}

}  // namespace flabench
