// fla-bench: times, checks and records linear-attention kernels. See README.md.
#include <CLI/CLI.hpp>

#include <iostream>

#include "app/build_info.h"
#include "app/commands.h"
#include "results/result_file.h"
#include "suites/usage_error.h"

int main(int argc, char** argv) {
  using namespace flabench;
  CommandLine line;
  line.argv.assign(argv, argv + argc);

  CLI::App app{
      "fla-bench: benchmark and check linear-attention kernels (rwkv6, rwkv7, gla, simple_gla, gsa)"};
  app.set_version_flag("--version", std::string(kFlaBenchVersion) + " (" + kGitSha + ")");
  add_selection_options(app, line);
  add_run_options(app, line);
  CLI::App* run = app.add_subcommand("run", "time and check the selected cases (the default)");
  CLI::App* list = app.add_subcommand("list", "show the selected cases and why any would be skipped");
  CLI::App* check = app.add_subcommand(
      "check", "the numerics battery on every variant: accuracy, decay, shapes, state, cross, hygiene");
  CLI::App* profile = app.add_subcommand(
      "profile", "time and check, then CUPTI counters and per-kernel times of every selected case");
  profile
      ->add_option("--metrics", line.metrics,
                   "default, deep, or a comma-separated list of CUPTI metric names")
      ->capture_default_str();
  profile->add_flag("--no-kernel-times", line.no_kernel_times,
                    "leave out the per-kernel times (CUPTI activity)");
  CLI::App* compare =
      app.add_subcommand("compare", "verdicts of a new run against a base run (or GPUs side by side)");
  CLI::App* history = app.add_subcommand("history", "trends and step changes over a GPU's nightly runs");
  CLI::App* merge =
      app.add_subcommand("merge", "join the shard files of one selection (--shard I/N) into OUT");
  CLI::App* plot = app.add_subcommand("plot", "figures (PNG and SVG) from result files");
  CLI::App* report = app.add_subcommand("report", "one static HTML page of tables and figures");
  add_compare_options(*compare, line);
  add_history_options(*history, line);
  add_merge_options(*merge, line);
  add_plot_options(*plot, line);
  add_plot_options(*report, line);
  list->add_flag("--presets", line.list_presets, "show the named shape presets instead");
  check->add_flag("--list", line.list_checks, "show the selected checks and why any would be skipped");
  check->add_flag("--no-long", line.no_long,
                  "leave out the 24,576-token checks (seconds of fp64 reference each)");
  for (CLI::App* sub : {run, list, check, profile, compare, history, merge, plot, report}) sub->fallthrough();
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fla-bench: error: " << e.what() << " (fla-bench --help lists the options)\n";
    return 2;
  }

  try {
    if (list->parsed()) return list_command(line);
    if (check->parsed()) return check_command(line);
    if (profile->parsed()) return profile_command(line);
    if (compare->parsed()) return compare_command(line);
    if (history->parsed()) return history_command(line);
    if (merge->parsed()) return merge_command(line);
    if (plot->parsed()) return plot_command(line);
    if (report->parsed()) return report_command(line);
    return run_command(line);
  } catch (const UsageError& e) {
    std::cerr << "fla-bench: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fla-bench: " << e.what() << "\n";
    return 1;
  }
}
