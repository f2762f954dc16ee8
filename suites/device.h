// The device a run measures on: a CUDA GPU or the host (the cpu backend). Variants never see this; the suite
// uses it to allocate, copy, flush the L2 and time.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "kernels/variant.h"
#include "results/record.h"

namespace flabench {

// Times one interval on the device's clock: CUDA events on a GPU, a steady clock on the host.
class IntervalTimer {
 public:
  virtual ~IntervalTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual double elapsed_ms() = 0;  // waits for the interval to finish
};

class Device {
 public:
  virtual ~Device() = default;
  virtual Backend backend() const = 0;
  virtual const DeviceRecord& record() const = 0;
  // within this thread's SharedMemoryCap, as the variants' own plans see them
  virtual DeviceLimits limits() const = 0;

  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* pointer) noexcept = 0;
  virtual void upload(void* device_dst, const void* host_src, std::size_t bytes) = 0;
  virtual void download(void* host_dst, const void* device_src, std::size_t bytes) = 0;
  // Every byte set to `byte`; 0xFF is NaN in fp32, fp16 and bf16, so an element never written shows up.
  virtual void fill(void* device_dst, unsigned char byte, std::size_t bytes) = 0;
  // Evicts the inputs from the L2 cache before a cold sample (a no-op on the host).
  virtual void flush_l2() = 0;
  virtual cudaStream_t stream() const = 0;  // null on the host
  virtual void synchronize() = 0;
  virtual std::unique_ptr<IntervalTimer> make_timer() = 0;
};

// Owns `bytes` bytes on a device.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Device& device, std::size_t bytes)
      : device_(&device), data_(bytes ? device.allocate(bytes) : nullptr), bytes_(bytes) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_) device_->release(data_);
  }
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  Device* device_ = nullptr;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// "auto" (GPU 0 if there is one, else the host), "cpu", "cuda" or "cuda:N". A named GPU that is missing is a
// UsageError; for "auto" without a GPU, `note` says why the cpu backend runs instead.
std::unique_ptr<Device> open_device(const std::string& spec, std::string& note);

std::unique_ptr<Device> open_cuda_device(int index);
std::unique_ptr<Device> open_cpu_device();

// The number of CUDA devices, or 0 with the reason in `why`.
int cuda_device_count(std::string& why);

}  // namespace flabench
