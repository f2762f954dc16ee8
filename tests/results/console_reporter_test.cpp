// The terminal table: every row's columns under the header's, timed or not, and the numbers where their
// headers say.
#include "results/console_reporter.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/results/sample_records.h"

namespace flabench {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The line that starts with `prefix`.
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const std::string& line : lines_of(text))
    if (line.rfind(prefix, 0) == 0) return line;
  ADD_FAILURE() << "no line starts with '" << prefix << "' in:\n" << text;
  return {};
}

// The word (or number) of `line` that ends at column `end`.
std::string word_ending_at(const std::string& line, std::size_t end) {
  std::size_t start = end;
  while (start > 0 && line[start - 1] != ' ') --start;
  return line.substr(start, end - start);
}

TEST(ConsoleReporter, TimedRowsPutEachNumberUnderItsHeader) {
  std::ostringstream out;
  const CaseRecord timed = testing::sample_case("gla/chunk/fwd/bf16/B1");
  CaseRecord untimed = testing::sample_case("gla/chunk/fwd/bf16/B2");
  untimed.timing.reset(), untimed.derived.reset();  // e.g. a case whose check failed before timing
  ConsoleReporter reporter(out, 24);
  reporter.begin(testing::sample_context());
  reporter.record(timed);
  reporter.record(untimed);
  const std::string text = out.str();
  const std::string header = line_starting(text, "case");

  // Right-aligned numbers end where their header ends.
  const std::string row = line_starting(text, "gla/chunk/fwd/bf16/B1");
  const std::size_t median_end = header.find("median ms") + std::string("median ms").size();
  const std::size_t issue_end = header.find("issue ms") + std::string("issue ms").size();
  EXPECT_EQ(word_ending_at(row, median_end), "1.5000");
  EXPECT_EQ(word_ending_at(row, issue_end), "0.0200");

  // The check column starts at the same place in the header, a timed row and an untimed one.
  const std::size_t check = header.find("check");
  EXPECT_EQ(row.find("ok "), check) << header << "\n" << row;
  const std::string blank = line_starting(text, "gla/chunk/fwd/bf16/B2");
  EXPECT_EQ(blank.find("ok "), check) << header << "\n" << blank;
}

TEST(ConsoleReporter, UntimedRunsHaveNoTimedColumns) {
  std::ostringstream out;
  RunContext context = testing::sample_context();
  context.settings.time = false;
  CaseRecord r = testing::sample_case("gla/chunk/fwd/bf16/B1");
  r.timing.reset(), r.derived.reset();
  ConsoleReporter reporter(out, 24);
  reporter.begin(context);
  reporter.record(r);
  const std::string header = line_starting(out.str(), "case");
  EXPECT_EQ(header.find("median ms"), std::string::npos);
  EXPECT_EQ(line_starting(out.str(), "gla/chunk/fwd/bf16/B1").find("ok "), header.find("check"));
}

}  // namespace
}  // namespace flabench
