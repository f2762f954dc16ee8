// A case's tensors on the cpu backend: the bytes a result file records as the case's memory (schema 1.6).
#include "suites/case_tensors.h"

#include <gtest/gtest.h>

#include "kernels/registry.h"

namespace flabench {
namespace {

TEST(CaseTensors, CountTheBytesOfEveryTensorOfTheMode) {
  const std::unique_ptr<Device> device = open_cpu_device();
  const OpSpec& op = *product_registry().find_op("rwkv7");
  const Variant& reference = *product_registry().find_variant("rwkv7", "reference");
  const Problem p{1, 16, 2, 16, 32, DType::bf16};
  // r, w, k, a, b [1, 16, 2, 16] and v [1, 16, 2, 32] in bf16, h0 [1, 2, 16, 32] in fp32; o in bf16, ht fp32
  const std::size_t inputs = 5 * 512 * 2 + 1024 * 2 + 1024 * 4, outputs = 1024 * 2 + 1024 * 4;
  EXPECT_EQ(CaseTensors(*device, op, reference, p, Mode::fwd).tensor_bytes(), inputs + outputs);
  // fwdbwd adds do and dht (the outputs' shapes) and a gradient of every input
  EXPECT_EQ(CaseTensors(*device, op, reference, p, Mode::fwdbwd).tensor_bytes(), 2 * (inputs + outputs));
}

}  // namespace
}  // namespace flabench
