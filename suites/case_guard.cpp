#include "suites/case_guard.h"

#include "kernels/common/cuda_check.h"

namespace flabench {

void CaseGuard::run(CaseRecord& record, const std::optional<std::string>& skip_reason,
                    const std::function<void()>& work) {
  if (skip_reason) {
    record.status = CaseStatus::skipped;
    record.reason = *skip_reason;
    return;
  }
  if (context_lost_) {
    record.status = CaseStatus::failed;
    record.reason = "not run: " + *context_lost_;
    return;
  }
  try {
    work();
  } catch (const CudaError& e) {
    record.status = CaseStatus::failed;
    record.reason = e.what();
    if (e.is_sticky()) context_lost_ = "the CUDA context was lost at " + record.name + ": " + e.what();
  } catch (const std::exception& e) {
    record.status = CaseStatus::failed;
    record.reason = e.what();
  }
}

void count_case(RunSummary& summary, const CaseRecord& record) {
  ++summary.cases;
  if (record.status == CaseStatus::ok) ++summary.ok;
  if (record.status == CaseStatus::failed) ++summary.failed;
  if (record.status == CaseStatus::skipped) ++summary.skipped;
}

}  // namespace flabench
