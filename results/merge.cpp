#include "results/merge.h"

#include <algorithm>
#include <set>

#include "kernels/common/format.h"

namespace flabench {
namespace {

[[noreturn]] void refuse(const std::string& what) {
  throw ResultFileError("merge: " + what);
}

std::string major_version(const std::string& version) {
  return version.substr(0, version.find('.'));
}

std::string build_of(const RunContext& c) {
  return "fla-bench " + c.fla_bench_version + " " + c.git_sha + (c.git_dirty ? " (dirty)" : "");
}

void require_same(const LoadedResult& first, const LoadedResult& other, const std::string& what,
                  const std::string& a, const std::string& b) {
  if (a != b)
    refuse(first.path.string() + " and " + other.path.string() + " differ in " + what + ": " + a + " vs " +
           b);
}

}  // namespace

ResultFile merge_shards(const std::vector<LoadedResult>& shards,
                        const std::vector<std::string>& command_line) {
  if (shards.empty()) refuse("no input files");
  const LoadedResult& first = shards.front();
  const SettingsRecord& s0 = first.file.context.settings;
  if (s0.shard_count == 0) refuse(first.path.string() + " is not a shard (run with --shard I/N)");
  std::set<int> seen;
  std::set<std::string> names;
  ResultFile merged;
  merged.context = first.file.context;
  merged.context.command_line = command_line;
  merged.context.settings.shard_index = merged.context.settings.shard_count = 0;
  merged.summary = RunSummary{};
  for (const LoadedResult& shard : shards) {
    const RunContext& c = shard.file.context;
    if (!shard.file.complete)
      refuse(shard.path.string() + " is an unfinished run (a .partial file): rerun that shard");
    require_same(first, shard, "build", build_of(first.file.context), build_of(c));
    require_same(first, shard, "schema major version", major_version(first.file.context.schema_version),
                 major_version(c.schema_version));
    require_same(first, shard, "GPU model", device_label(first.file.context.device), device_label(c.device));
    require_same(first, shard, "fla-bench switches (FLA_* variables)",
                 environment_text(fla_switches(first.file.context.environment)),
                 environment_text(fla_switches(c.environment)));
    // the whole keeps the variables every shard ran with (the switches, and CUDA_* ones they share)
    std::erase_if(merged.context.environment, [&](const auto& entry) {
      const auto it = c.environment.find(entry.first);
      return it == c.environment.end() || it->second != entry.second;
    });
    require_same(first, shard, "selection (filter, axes, presets)",
                 format("%lld cases, digest %s", static_cast<long long>(s0.selection_cases),
                        s0.selection_digest.c_str()),
                 format("%lld cases, digest %s", static_cast<long long>(c.settings.selection_cases),
                        c.settings.selection_digest.c_str()));
    require_same(first, shard, "shard count", std::to_string(s0.shard_count),
                 std::to_string(c.settings.shard_count));
    if (!seen.insert(c.settings.shard_index).second)
      refuse(format("shard %d/%d is given twice (%s)", c.settings.shard_index, s0.shard_count,
                    shard.path.c_str()));
    for (const CaseRecord& r : shard.file.cases) {
      if (!names.insert(r.name).second)
        refuse("case " + r.name + " is in two shards (" + shard.path.string() + ")");
      merged.cases.push_back(r);
    }
    if (shard.file.summary) {
      merged.summary->cases += shard.file.summary->cases;
      merged.summary->ok += shard.file.summary->ok;
      merged.summary->failed += shard.file.summary->failed;
      merged.summary->skipped += shard.file.summary->skipped;
      merged.summary->wall_s = std::max(merged.summary->wall_s, shard.file.summary->wall_s);
    }
  }
  for (int index = 1; index <= s0.shard_count; ++index)
    if (!seen.count(index)) refuse(format("shard %d/%d is missing", index, s0.shard_count));
  if (static_cast<std::int64_t>(merged.cases.size()) != s0.selection_cases)
    refuse(format("the shards hold %zu cases, the selection %lld", merged.cases.size(),
                  static_cast<long long>(s0.selection_cases)));
  merged.complete = true;
  return merged;
}

}  // namespace flabench
