#include <iostream>

#include "app/commands.h"
#include "app/isolation.h"
#include "app/run_output.h"
#include "suites/battery.h"
#include "suites/usage_error.h"

namespace flabench {
namespace {

void list_battery(const std::vector<BatteryCase>& cases) {
  for (const BatteryCase& c : cases) {
    std::cout << c.name;
    if (c.skip_reason) std::cout << "  (skipped: " << *c.skip_reason << ")";
    std::cout << "\n";
  }
  std::cout << cases.size() << " checks\n";
}

}  // namespace

// The check battery (suites/battery.h) on every variant of the device's backend.
int check_command(const CommandLine& line) {
  if (!line.axes.empty() || !line.preset.empty())
    throw UsageError(
        "check runs the battery's own shapes, so --axis and --preset do not apply; select checks "
        "with --filter, e.g. '^decay/' or '/bf16/'");
  std::string note;
  std::unique_ptr<Device> device = open_device(line.device, note);
  if (!note.empty()) std::cerr << "fla-bench: " << note << "\n";
  const BatterySpec spec{line.filter, device->backend(), device->limits(), !line.no_long};
  const std::vector<BatteryCase> cases = battery_cases(product_registry(), spec);
  if (cases.empty())
    throw UsageError("no check matches --filter '" + line.filter + "' on the " +
                     std::string(backend_name(spec.backend)) +
                     " backend (fla-bench check --list shows them)");
  if (line.list_checks) {
    list_battery(cases);
    return 0;
  }

  RunSettings settings = run_settings(line, *device);
  settings.time = false;
  settings.check = true;
  const std::string reproduce = "fla-bench check --device " + line.device;
  if (line.worker) {
    BatteryRunner runner(*device, line.seed, reproduce);
    return serve_cases(
        *device, cases.size(), [&](std::size_t i) { return cases[i].name; },
        [&](std::size_t i) { return runner.run(cases[i]); });
  }
  RunOutput output(line, RunOutput::longest_name(cases));
  output.reporter().begin(run_context(line, *device, settings));
  if (!isolated(line, /*check=*/true))
    return output.finish(run_battery(*device, cases, line.seed, reproduce, output.reporter()));
  std::vector<IsolatedJob> jobs;
  for (const BatteryCase& c : cases) jobs.push_back({battery_record(c), c.skip_reason});
  return output.finish(run_isolated(jobs, worker_command(line, "check", 0), isolation_settings(line, *device),
                                    output.reporter()));
}

}  // namespace flabench
