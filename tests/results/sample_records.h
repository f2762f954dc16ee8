// A filled-in context and case record, for the result tests.
#pragma once

#include "results/record.h"

namespace flabench::testing {

inline RunContext sample_context() {
  RunContext c;
  c.started_utc = "2026-11-22T08:00:00Z";
  c.host = "gpu-host";
  c.fla_bench_version = "0.1.0";
  c.git_sha = "0123456789abcdef0123456789abcdef01234567";
  c.command_line = {"fla-bench", "--filter", "rwkv7"};
  c.device = {"cuda",
              0,
              "NVIDIA H100 80GB HBM3",
              "GPU-00112233-4455-6677-8899-aabbccddeeff",
              90,
              132,
              1980,
              2619,
              5120,
              8.5e10,
              5.24e7,
              232448,
              3352.3,
              3010.5,
              "13.0",
              "13.0"};
  c.settings = {0.5, 10, 0.1, true, true, true, 42, 3010.5, "measured"};
  return c;
}

inline CaseRecord sample_case(const std::string& name = "rwkv7/naive/fwd/bf16/B8-T1024-H8-K64-V64") {
  CaseRecord r;
  r.name = name;
  r.op = "rwkv7", r.variant = "naive", r.mode = "fwd", r.dtype = "bf16";
  r.B = 8, r.T = 1024, r.H = 8, r.K = 64, r.V = 64;
  r.scale = 1.0;
  r.timing = TimingRecord{3, 1.5, 1.5, 0.1, 1.4, 1.6, 1.45, 1.55, {1.5, 1.4, 1.6}, 0.02};
  r.derived = DerivedRecord{5.46e6, 1.2e10, 8.0, 6.08e7, 0.0202, 40.5, 1.35};
  r.memory = MemoryRecord{50331648, 2147483648};
  r.check = CheckRecord{
      true, "B2-T257-H3-K64-V64", {{"o", 1.7e-3, 0.02, 5e-3, 0, true}, {"ht", 1e-7, 1e-6, 5e-3, 0, true}}};
  return r;
}

}  // namespace flabench::testing
