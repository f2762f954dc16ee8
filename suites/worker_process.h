// A child fla-bench process that runs cases on request, one line of text each way over its stdin and stdout:
// a case that crashes, hangs or poisons its CUDA context takes only the worker down, never the run.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace flabench {

class WorkerProcess {
 public:
  // Starts `argv` (argv[0] is the program path) with pipes on its stdin and stdout; stderr is shared with
  // this process. Throws std::runtime_error when it cannot start.
  explicit WorkerProcess(const std::vector<std::string>& argv);
  ~WorkerProcess();  // kills a worker still running and reaps it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Writes `line` and a newline; false when the worker is gone.
  bool send(const std::string& line);

  // The next complete line the worker wrote, waiting until `deadline`.
  enum class Read { line, closed, timed_out };
  Read read_line(std::string& line, std::chrono::steady_clock::time_point deadline);

  // For waiting on several workers at once: poll output_fd(), pump() when it is readable (false: the worker
  // closed its output), then take_line() each complete line.
  int output_fd() const { return from_worker_; }
  bool pump();
  bool take_line(std::string& line);

  // Kills the worker (SIGKILL) and reaps it.
  void kill();
  // After `closed`: reaps the worker and says how it ended, e.g. "killed by signal 11 (Segmentation fault)".
  std::string end_cause();

 private:
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string buffer_;
  int status_ = 0;
  bool reaped_ = false;
};

}  // namespace flabench
