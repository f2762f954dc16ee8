// Slices of a selection for cluster schedulers (a Slurm job array, a CI matrix): `--shard I/N` runs the I-th
// of N deterministic slices, balanced by each case's expected cost, so the shards finish at about the same
// time. `fla-bench merge` joins the shard files again (results/merge.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "suites/cases.h"

namespace flabench {

struct ShardSpec {
  int index = 1;  // 1..count
  int count = 1;
};

// "2/4". Throws UsageError for anything else (I outside 1..N, N < 1).
ShardSpec parse_shard(const std::string& text);

// A case's expected run time in units of one small timed case: every timed case costs about --min-time, and
// on top of that its recurrent-form FLOPs (forward and backward) at a rate a slow (naive) kernel reaches.
// Only the ratios matter: they balance the shards.
double expected_cost(const Case& c);

// The cases of shard `spec`, in the selection's order. Longest-processing-time-first assignment: cases by
// falling cost (ties by name), each to the shard with the least cost so far (ties to the lowest index), so
// the slices are deterministic, disjoint, cover the selection, and their costs differ by at most one case's
// cost.
std::vector<Case> shard_cases(const std::vector<Case>& cases, ShardSpec spec);

// FNV-1a (64 bits, hex) of the case names in order: the same selection gives the same digest everywhere.
std::string selection_digest(const std::vector<Case>& cases);

}  // namespace flabench
