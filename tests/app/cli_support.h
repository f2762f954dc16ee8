// Running the fla-bench binary as a user does, for the CLI tests: exit status, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace flabench::testing {

namespace fs = std::filesystem;

struct Outcome {
  int status;
  std::string out, err;
};

inline std::string slurp(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// The binary under test: the build's, or FLA_BENCH_BINARY from the environment (a bundle on a GPU machine,
// where the build's path does not exist: then every CLI test stops with this one clear reason).
inline std::string fla_bench_binary() {
  const char* bundled = std::getenv("FLA_BENCH_BINARY");
  const std::string binary = bundled && *bundled ? bundled : FLA_BENCH_BINARY;
  if (!fs::exists(binary))
    throw std::runtime_error(
        "no fla-bench at " + binary +
        ": set FLA_BENCH_BINARY to the binary under test (scripts/gpu-validate.sh does)");
  return binary;
}

// `environment`: "NAME=value ..." set for the command alone.
inline Outcome fla_bench(const std::string& arguments, const std::string& environment = "") {
  const fs::path dir = fs::temp_directory_path();
  const std::string tag = std::to_string(::getpid());
  const fs::path out = dir / ("cli-out-" + tag), err = dir / ("cli-err-" + tag);
  const std::string command =
      environment + " " + fla_bench_binary() + " " + arguments + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(command.c_str());
  Outcome outcome{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
  fs::remove(out);
  fs::remove(err);
  return outcome;
}

inline void expect_usage_error(const std::string& arguments, const std::string& fragment) {
  const Outcome o = fla_bench(arguments);
  EXPECT_EQ(o.status, 2) << arguments << "\n" << o.err;
  EXPECT_NE(o.err.find(fragment), std::string::npos) << arguments << "\nstderr: " << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one line: " << o.err;
  EXPECT_EQ(o.out, "") << arguments;
}

}  // namespace flabench::testing
