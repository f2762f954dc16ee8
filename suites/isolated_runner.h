// Cases in worker processes (--isolate, --devices): each worker is an fla-bench process that opened its own
// device and expanded the same selection; the parent hands it one case at a time by index and name and takes
// back the record. A case that crashes its worker (a signal), hangs past the case timeout, or leaves the CUDA
// context unusable is recorded as failed with that cause, and a fresh worker takes the next case. With
// several devices there is one worker per GPU, each taking the next case when it finishes one, so no two
// cases share a GPU while timed.
//
// Protocol, one line each: worker "ready <cases>"; parent "run <index> <name>"; worker "record <case JSON>",
// then "lost" (and exit) when its context is gone; end of the parent's input ends the worker.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results/reporter.h"

namespace flabench {

struct IsolationSettings {
  double case_timeout_s = 600;
  double start_timeout_s = 300;      // a worker opening its device and expanding the selection
  std::vector<std::string> devices;  // one worker each ("cuda:0"); a record is tagged with it when several
};

// The worker's command line (argv[0] first) for one device.
using WorkerCommand = std::function<std::vector<std::string>(const std::string& device)>;

struct IsolatedJob {
  CaseRecord base;  // name and axes, for the record of a case its worker could not finish
  std::optional<std::string> skip_reason;
};

// Throws std::runtime_error when a worker cannot start (twice in a row on one device); records made until
// then are with the reporter.
RunSummary run_isolated(const std::vector<IsolatedJob>& jobs, const WorkerCommand& command,
                        const IsolationSettings& settings, Reporter& reporter);

}  // namespace flabench
