#include "results/record.h"

#include "kernels/common/format.h"

namespace flabench {

std::string_view status_name(CaseStatus status) {
  switch (status) {
    case CaseStatus::ok:
      return "ok";
    case CaseStatus::failed:
      return "failed";
    case CaseStatus::skipped:
      return "skipped";
  }
  return "?";
}

std::optional<CaseStatus> parse_status(std::string_view text) {
  for (CaseStatus status : {CaseStatus::ok, CaseStatus::failed, CaseStatus::skipped})
    if (status_name(status) == text) return status;
  return std::nullopt;
}

std::string check_summary(const CheckRecord& check) {
  if (check.tensors.empty()) return check.passed ? "ok" : "FAIL";
  if (!check.passed) {
    for (const TensorCheckRecord& t : check.tensors) {
      if (t.passed) continue;
      if (!t.detail.empty()) return format("FAIL %s: %s", t.tensor.c_str(), t.detail.c_str());
      if (t.nonfinite > 0)
        return format("FAIL %s has %lld NaN/Inf", t.tensor.c_str(), (long long)t.nonfinite);
      return format("FAIL %s %.1e > %.1e", t.tensor.c_str(), t.rms_ratio, t.threshold);
    }
  }
  const TensorCheckRecord* worst = nullptr;  // the tensor closest to its threshold, among numeric ones
  for (const TensorCheckRecord& t : check.tensors)
    if (t.threshold > 0 && (!worst || t.rms_ratio / t.threshold > worst->rms_ratio / worst->threshold))
      worst = &t;
  if (!worst) return "ok";
  return format("ok %.1e (%s)", worst->rms_ratio, worst->tensor.c_str());
}

}  // namespace flabench
