// A CUDA GPU: allocations with cudaMalloc, work on one non-blocking stream, timing with CUDA events.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernels/common/cuda_check.h"
#include "suites/device.h"

namespace flabench {
namespace {

class CudaEventTimer : public IntervalTimer {
 public:
  explicit CudaEventTimer(cudaStream_t stream) : stream_(stream) {
    FLA_CUDA_CHECK(cudaEventCreate(&start_));
    FLA_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~CudaEventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start() override { FLA_CUDA_CHECK(cudaEventRecord(start_, stream_)); }
  void stop() override { FLA_CUDA_CHECK(cudaEventRecord(stop_, stream_)); }
  double elapsed_ms() override {
    FLA_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    FLA_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_, stop_;
};

std::string version_string(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string uuid_string(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    text += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) text += '-';
  }
  return text;
}

class CudaDevice : public Device {
 public:
  explicit CudaDevice(int index) : index_(index) {
    FLA_CUDA_CHECK(cudaSetDevice(index));
    FLA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    describe();
    record_.bandwidth_measured_gbs = measure_copy_bandwidth();
    flush_buffer_ = DeviceBuffer(*this, 2 * static_cast<std::size_t>(record_.l2_bytes));
  }
  ~CudaDevice() override {
    flush_buffer_ = DeviceBuffer();
    cudaStreamDestroy(stream_);
  }

  Backend backend() const override { return Backend::cuda; }
  const DeviceRecord& record() const override { return record_; }
  DeviceLimits limits() const override {
    return within_shared_memory_cap({static_cast<std::size_t>(record_.shared_memory_per_block),
                                     record_.compute_capability, record_.sm_count});
  }

  void* allocate(std::size_t bytes) override {
    void* pointer = nullptr;
    FLA_CUDA_CHECK(cudaMalloc(&pointer, bytes));
    return pointer;
  }
  void release(void* pointer) noexcept override { cudaFree(pointer); }
  void upload(void* dst, const void* src, std::size_t bytes) override {
    FLA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
    synchronize();
  }
  void download(void* dst, const void* src, std::size_t bytes) override {
    FLA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
    synchronize();
  }
  void fill(void* dst, unsigned char byte, std::size_t bytes) override {
    FLA_CUDA_CHECK(cudaMemsetAsync(dst, byte, bytes, stream_));
  }
  void flush_l2() override {
    FLA_CUDA_CHECK(cudaMemsetAsync(flush_buffer_.data(), 0, flush_buffer_.bytes(), stream_));
  }
  cudaStream_t stream() const override { return stream_; }
  void synchronize() override { FLA_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  std::unique_ptr<IntervalTimer> make_timer() override { return std::make_unique<CudaEventTimer>(stream_); }

 private:
  void describe() {
    cudaDeviceProp prop{};
    FLA_CUDA_CHECK(cudaGetDeviceProperties(&prop, index_));
    auto attribute = [&](cudaDeviceAttr attr) {
      int value = 0;
      FLA_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, index_));
      return value;
    };
    record_.backend = "cuda";
    record_.index = index_;
    record_.name = prop.name;
    record_.uuid = uuid_string(prop.uuid);
    record_.compute_capability = prop.major * 10 + prop.minor;
    record_.sm_count = prop.multiProcessorCount;
    record_.sm_clock_mhz = attribute(cudaDevAttrClockRate) / 1000.0;
    record_.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate) / 1000.0;
    record_.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
    record_.memory_bytes = static_cast<double>(prop.totalGlobalMem);
    record_.l2_bytes = prop.l2CacheSize;
    record_.shared_memory_per_block = static_cast<double>(prop.sharedMemPerBlockOptin);
    // Double data rate: two transfers per memory clock.
    record_.bandwidth_theoretical_gbs =
        2.0 * record_.memory_clock_mhz * 1e6 * record_.memory_bus_bits / 8 / 1e9;
    int runtime = 0, driver = 0;
    FLA_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    FLA_CUDA_CHECK(cudaDriverGetVersion(&driver));
    record_.cuda_runtime = version_string(runtime);
    record_.cuda_driver = version_string(driver);
  }

  // Median of ten device-to-device copies of 512 MiB, counting bytes read and written.
  double measure_copy_bandwidth() {
    const std::size_t bytes = std::size_t(512) << 20;
    DeviceBuffer source(*this, bytes), target(*this, bytes);
    FLA_CUDA_CHECK(cudaMemsetAsync(source.data(), 0, bytes, stream_));
    CudaEventTimer timer(stream_);
    std::vector<double> ms;
    for (int i = 0; i < 12; ++i) {
      timer.start();
      FLA_CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream_));
      timer.stop();
      if (i >= 2) ms.push_back(timer.elapsed_ms());
    }
    std::sort(ms.begin(), ms.end());
    const double median_ms = (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
    return 2.0 * static_cast<double>(bytes) / (median_ms * 1e-3) / 1e9;
  }

  int index_;
  cudaStream_t stream_ = nullptr;
  DeviceRecord record_;
  DeviceBuffer flush_buffer_;
};

}  // namespace

std::unique_ptr<Device> open_cuda_device(int index) {
  return std::make_unique<CudaDevice>(index);
}

}  // namespace flabench
