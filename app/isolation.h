// --isolate and --devices: the parent's side (which devices, the workers' command line) and the worker's side
// (serving the cases the parent names). suites/isolated_runner.h has the protocol.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/options.h"
#include "suites/isolated_runner.h"

namespace flabench {

// Whether the run goes through workers: --isolate, --devices, or `check` unless --no-isolate.
bool isolated(const CommandLine& line, bool check);

// The devices of --devices ("all", "0,2,3"), or the session's device alone. Throws UsageError.
std::vector<std::string> worker_devices(const CommandLine& line, const Device& session_device);

// Isolation settings and the worker command line for `subcommand` ("run" or "check"): the parent's options,
// the device, and the parent's byte-floor bandwidth, so every worker's floors agree.
IsolationSettings isolation_settings(const CommandLine& line, const Device& session_device);
WorkerCommand worker_command(const CommandLine& line, const std::string& subcommand,
                             double floor_bandwidth_gbs);

// The worker's loop: "ready <count>", then one record per "run <index> <name>" until its input ends; exits
// with "lost" after a case that left the CUDA context unusable. FLA_BENCH_WORKER_FAULT="<regex>=<kind>" makes
// it fault before a matching case (kinds: segv, abort, hang, exit, cuda), to test that runs survive faults.
int serve_cases(Device& device, std::size_t count, const std::function<std::string(std::size_t)>& name_of,
                const std::function<CaseRecord(std::size_t)>& run_one);

}  // namespace flabench
