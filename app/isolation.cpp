#include "app/isolation.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "kernels/common/cuda_check.h"
#include "kernels/common/fault_injection.h"
#include "results/json_format.h"
#include "suites/usage_error.h"

namespace flabench {
namespace {

std::string self_executable() {
  char path[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) throw std::runtime_error("cannot find the fla-bench executable (/proc/self/exe)");
  return std::string(path, static_cast<std::size_t>(length));
}

std::string number(double value) {
  std::ostringstream text;
  text.precision(17);
  text << value;
  return text.str();
}

// The fault FLA_BENCH_WORKER_FAULT asks for before case `name`, if any.
void inject_fault(const std::string& name, Device& device) {
  const char* spec = std::getenv("FLA_BENCH_WORKER_FAULT");
  if (!spec || !*spec) return;
  const std::string text = spec;
  const std::size_t equals = text.rfind('=');
  if (equals == std::string::npos || !std::regex_search(name, std::regex(text.substr(0, equals)))) return;
  const std::string kind = text.substr(equals + 1);
  std::cout.flush();
  if (kind == "segv") raise(SIGSEGV);
  if (kind == "abort") std::abort();
  if (kind == "exit") std::_Exit(7);
  if (kind == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  if (kind == "cuda") launch_illegal_address_kernel(device.stream());
}

}  // namespace

bool isolated(const CommandLine& line, bool check) {
  if (line.no_isolate) return false;
  return line.isolate || !line.devices.empty() || check;
}

std::vector<std::string> worker_devices(const CommandLine& line, const Device& session_device) {
  if (line.devices.empty())
    return {session_device.backend() == Backend::cpu
                ? "cpu"
                : "cuda:" + std::to_string(session_device.record().index)};
  std::string why;
  const int count = cuda_device_count(why);
  if (count == 0) throw UsageError("--devices " + line.devices + ": no CUDA device here (" + why + ")");
  std::vector<std::string> devices;
  if (line.devices == "all") {
    for (int i = 0; i < count; ++i) devices.push_back("cuda:" + std::to_string(i));
  } else {
    std::stringstream list(line.devices);
    for (std::string item; std::getline(list, item, ',');) {
      char* end = nullptr;
      const long index = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end || index < 0 || index >= count)
        throw UsageError("--devices: '" + item + "' is not a GPU here (" + std::to_string(count) +
                         " found: 0.." + std::to_string(count - 1) + ")");
      devices.push_back("cuda:" + item);
    }
  }
  if (devices.empty()) throw UsageError("--devices: '" + line.devices + "' names no GPU (all, or 0,2,3)");
  return devices;
}

IsolationSettings isolation_settings(const CommandLine& line, const Device& session_device) {
  IsolationSettings settings;
  settings.case_timeout_s = line.case_timeout_s;
  settings.devices = worker_devices(line, session_device);
  return settings;
}

WorkerCommand worker_command(const CommandLine& line, const std::string& subcommand,
                             double floor_bandwidth_gbs) {
  std::vector<std::string> common{self_executable(), subcommand, "--worker", "--seed",
                                  std::to_string(line.seed)};
  if (!line.filter.empty()) common.insert(common.end(), {"--filter", line.filter});
  if (subcommand == "check") {
    if (line.no_long) common.push_back("--no-long");
  } else {
    for (const std::string& axis : line.axes) common.insert(common.end(), {"--axis", axis});
    if (!line.preset.empty()) common.insert(common.end(), {"--preset", line.preset});
    if (!line.shard.empty()) common.insert(common.end(), {"--shard", line.shard});
    common.insert(common.end(), {"--min-time", number(line.min_time_s), "--min-samples",
                                 std::to_string(line.min_samples), "--warmup", number(line.warmup_time_s)});
    if (line.no_l2_flush) common.push_back("--no-l2-flush");
    if (line.no_check) common.push_back("--no-check");
    if (floor_bandwidth_gbs > 0) common.insert(common.end(), {"--bandwidth", number(floor_bandwidth_gbs)});
  }
  return [common](const std::string& device) {
    std::vector<std::string> argv = common;
    argv.insert(argv.end(), {"--device", device});
    return argv;
  };
}

int serve_cases(Device& device, std::size_t count, const std::function<std::string(std::size_t)>& name_of,
                const std::function<CaseRecord(std::size_t)>& run_one) {
  std::cout << "ready " << count << std::endl;
  for (std::string line; std::getline(std::cin, line);) {
    std::istringstream request(line);
    std::string verb, name;
    std::size_t index = 0;
    request >> verb >> index >> name;
    if (verb != "run" || index >= count || name_of(index) != name) {
      std::cerr << "fla-bench worker: a request for a case this worker's selection does not hold: " << line
                << "\n";
      return 2;
    }
    inject_fault(name, device);
    std::cout << "record " << nlohmann::json(run_one(index)).dump() << std::endl;
    try {
      device.synchronize();
    } catch (const CudaError& e) {
      if (e.is_sticky()) {
        std::cout << "lost" << std::endl;
        return 3;
      }
    }
  }
  return 0;
}

}  // namespace flabench
