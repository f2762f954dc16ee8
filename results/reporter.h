// The reporter contract: begin once with the run's context, record each case as it finishes, end once.
// Several reporters run together (the console and the result file) through ReporterFanout.
#pragma once

#include <vector>

#include "results/record.h"

namespace flabench {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const RunContext& context) = 0;
  virtual void record(const CaseRecord& record) = 0;
  virtual void end(const RunSummary& summary) = 0;
};

class ReporterFanout : public Reporter {
 public:
  explicit ReporterFanout(std::vector<Reporter*> reporters) : reporters_(std::move(reporters)) {}
  void begin(const RunContext& context) override {
    for (Reporter* r : reporters_) r->begin(context);
  }
  void record(const CaseRecord& record) override {
    for (Reporter* r : reporters_) r->record(record);
  }
  void end(const RunSummary& summary) override {
    for (Reporter* r : reporters_) r->end(summary);
  }

 private:
  std::vector<Reporter*> reporters_;
};

// Keeps the records, for a caller that runs cases in-process and wants them back (a worker, a test).
class RecordCollector : public Reporter {
 public:
  void begin(const RunContext&) override {}
  void record(const CaseRecord& record) override { records.push_back(record); }
  void end(const RunSummary&) override {}
  std::vector<CaseRecord> records;
};

}  // namespace flabench
