// Running the `loom` binary (LOOM_BINARY) from a test as a user would: exit code, stdout and
// stderr, in a scratch folder of the test process.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "scratch_cleanup.h"

namespace cli_support {

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One folder per test process: CTest runs the cases in parallel.
inline std::filesystem::path scratch() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("loom_cli_test." + std::to_string(getpid()));
  if (std::filesystem::create_directories(dir)) loom::testing::remove_at_exit(dir);
  return dir;
}

// `loom ARGS` through the shell (ARGS may quote and redirect), after the shell commands `before`
// (e.g. "cd dir && ").
inline Result run_loom(const std::string& args, const std::string& before = "") {
  const std::filesystem::path out = scratch() / "stdout.txt", err = scratch() / "stderr.txt";
  const std::string command =
      before + std::string(LOOM_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

}  // namespace cli_support
