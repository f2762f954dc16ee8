#include "suites/isolated_runner.h"

#include <poll.h>

#include <chrono>
#include <deque>
#include <memory>

#include "kernels/common/format.h"
#include "results/json_format.h"
#include "suites/case_guard.h"
#include "suites/worker_process.h"

namespace flabench {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

struct Slot {
  std::string device;
  std::unique_ptr<WorkerProcess> worker;
  std::optional<std::size_t> job;
  Clock::time_point deadline;
};

class Dispatcher {
 public:
  Dispatcher(const std::vector<IsolatedJob>& jobs, const WorkerCommand& command,
             const IsolationSettings& settings, Reporter& reporter)
      : jobs_(jobs), command_(command), settings_(settings), reporter_(reporter) {}

  RunSummary run() {
    const auto start = Clock::now();
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      if (jobs_[i].skip_reason) {
        CaseRecord record = jobs_[i].base;
        record.status = CaseStatus::skipped;
        record.reason = *jobs_[i].skip_reason;
        finish(record);
      } else {
        pending_.push_back(i);
      }
    }
    for (const std::string& device : settings_.devices) slots_.push_back({device, nullptr, std::nullopt, {}});
    while (!pending_.empty() || busy() > 0) {
      for (Slot& slot : slots_)
        if (!slot.job && !pending_.empty()) assign(slot);
      wait_and_collect();
    }
    summary_.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    return summary_;
  }

 private:
  int busy() const {
    int n = 0;
    for (const Slot& slot : slots_) n += slot.job.has_value();
    return n;
  }

  void start_worker(Slot& slot) {
    for (int attempt = 0;; ++attempt) {
      slot.worker = std::make_unique<WorkerProcess>(command_(slot.device));
      std::string line;
      const auto read = slot.worker->read_line(line, after(settings_.start_timeout_s));
      if (read == WorkerProcess::Read::line && line.rfind("ready ", 0) == 0) return;
      const std::string cause = read == WorkerProcess::Read::timed_out
                                    ? "did not start within the start timeout"
                                : read == WorkerProcess::Read::closed ? slot.worker->end_cause()
                                                                      : "said '" + line + "'";
      slot.worker.reset();
      if (attempt == 1) throw std::runtime_error("the worker for " + slot.device + " cannot start: " + cause);
    }
  }

  void assign(Slot& slot) {
    if (!slot.worker) start_worker(slot);
    const std::size_t job = pending_.front();
    pending_.pop_front();
    slot.job = job;
    slot.deadline = after(settings_.case_timeout_s);
    const std::string request = format("run %zu %s", job, jobs_[job].base.name.c_str());
    if (slot.worker->send(request)) return;
    slot.worker.reset();  // it ended while idle (after its last case): a fresh one takes this case
    start_worker(slot);
    if (!slot.worker->send(request)) worker_died(slot);
  }

  void fail_job(Slot& slot, const std::string& reason) {
    CaseRecord record = jobs_[*slot.job].base;
    record.status = CaseStatus::failed;
    record.reason = reason;
    tag(record, slot);
    slot.job.reset();
    finish(record);
  }

  void worker_died(Slot& slot) {
    const std::string cause = slot.worker->end_cause();
    slot.worker.reset();
    if (slot.job)
      fail_job(slot, "the worker running this case " + cause + " (a fresh worker took the next case)");
  }

  void tag(CaseRecord& record, const Slot& slot) const {
    if (settings_.devices.size() > 1) record.device = slot.device;
  }

  void take_lines(Slot& slot) {
    std::string line;
    while (slot.worker && slot.worker->take_line(line)) {
      if (line.rfind("record ", 0) == 0 && slot.job) {
        CaseRecord record = nlohmann::json::parse(line.substr(7)).get<CaseRecord>();
        tag(record, slot);
        slot.job.reset();
        finish(record);
      } else if (line == "lost") {
        slot.worker->kill();  // its context is gone: the next case gets a fresh worker
        slot.worker.reset();
      }
    }
  }

  void wait_and_collect() {
    std::vector<pollfd> watched;
    std::vector<Slot*> owners;
    Clock::time_point earliest = after(1);
    for (Slot& slot : slots_) {
      if (!slot.job || !slot.worker) continue;
      watched.push_back({slot.worker->output_fd(), POLLIN, 0});
      owners.push_back(&slot);
      earliest = std::min(earliest, slot.deadline);
    }
    if (watched.empty()) return;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(earliest - Clock::now());
    poll(watched.data(), watched.size(), static_cast<int>(std::max<long long>(0, wait.count())));
    for (std::size_t i = 0; i < watched.size(); ++i) {
      Slot& slot = *owners[i];
      if (watched[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        if (!slot.worker->pump()) {
          take_lines(slot);  // whatever it wrote before it ended
          if (slot.worker) worker_died(slot);
          continue;
        }
        take_lines(slot);
      }
      if (slot.job && Clock::now() >= slot.deadline) {
        slot.worker->kill();
        slot.worker.reset();
        fail_job(slot, format("timed out after %g s (--case-timeout); the worker was killed",
                              settings_.case_timeout_s));
      }
    }
  }

  void finish(const CaseRecord& record) {
    count_case(summary_, record);
    reporter_.record(record);
  }

  const std::vector<IsolatedJob>& jobs_;
  const WorkerCommand& command_;
  const IsolationSettings& settings_;
  Reporter& reporter_;
  std::deque<std::size_t> pending_;
  std::vector<Slot> slots_;
  RunSummary summary_;
};

}  // namespace

RunSummary run_isolated(const std::vector<IsolatedJob>& jobs, const WorkerCommand& command,
                        const IsolationSettings& settings, Reporter& reporter) {
  return Dispatcher(jobs, command, settings, reporter).run();
}

}  // namespace flabench
