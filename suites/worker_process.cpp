#include "suites/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace flabench {

WorkerProcess::WorkerProcess(const std::vector<std::string>& argv) {
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot start a worker: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  std::vector<std::string> arguments = argv;
  std::vector<char*> pointers;
  for (std::string& argument : arguments) pointers.push_back(argument.data());
  pointers.push_back(nullptr);
  const int spawned = posix_spawn(&pid_, pointers[0], &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  to_worker_ = to_child[1];
  from_worker_ = from_child[0];
  if (spawned != 0) {
    close(to_worker_);
    close(from_worker_);
    throw std::runtime_error("cannot start a worker (" + argv[0] + "): " + std::strerror(spawned));
  }
  signal(SIGPIPE, SIG_IGN);  // a worker that died is noticed on read, not by a signal on write
}

WorkerProcess::~WorkerProcess() {
  kill();
  close(to_worker_);
  close(from_worker_);
}

bool WorkerProcess::send(const std::string& line) {
  const std::string text = line + "\n";
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(to_worker_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

bool WorkerProcess::pump() {
  char chunk[65536];
  for (;;) {
    const ssize_t n = read(from_worker_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
}

bool WorkerProcess::take_line(std::string& line) {
  const std::size_t end = buffer_.find('\n');
  if (end == std::string::npos) return false;
  line = buffer_.substr(0, end);
  buffer_.erase(0, end + 1);
  return true;
}

WorkerProcess::Read WorkerProcess::read_line(std::string& line,
                                             std::chrono::steady_clock::time_point deadline) {
  while (!take_line(line)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Read::timed_out;
    pollfd watch{from_worker_, POLLIN, 0};
    const int ready = poll(&watch, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready > 0 && !pump()) return Read::closed;
  }
  return Read::line;
}

void WorkerProcess::kill() {
  if (reaped_ || pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  waitpid(pid_, &status_, 0);
  reaped_ = true;
}

std::string WorkerProcess::end_cause() {
  if (!reaped_) {
    waitpid(pid_, &status_, 0);
    reaped_ = true;
  }
  if (WIFSIGNALED(status_))
    return "killed by signal " + std::to_string(WTERMSIG(status_)) + " (" + strsignal(WTERMSIG(status_)) +
           ")";
  if (WIFEXITED(status_)) return "exited with status " + std::to_string(WEXITSTATUS(status_));
  return "ended";
}

}  // namespace flabench
