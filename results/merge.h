// `fla-bench merge OUT IN...`: the shard files of one selection (--shard I/N on several machines or array
// tasks) joined into one result file, refusing what would make a wrong whole: another build (commit, dirty
// tree or fla-bench version), another schema major version, another GPU model, another selection, a shard
// missing or given twice, an unfinished shard, a case in two shards.
#pragma once

#include <string>
#include <vector>

#include "results/result_set.h"

namespace flabench {

// The merged file: the first shard's context (shard fields cleared, `command_line` replaced), every case in
// shard order, and a summary adding the counts, with wall_s the longest shard's (the shards ran side by
// side). Throws ResultFileError naming the files and what differs.
ResultFile merge_shards(const std::vector<LoadedResult>& shards,
                        const std::vector<std::string>& command_line);

}  // namespace flabench
