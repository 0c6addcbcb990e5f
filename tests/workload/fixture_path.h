// The shared fixtures by path relative to their directory (fixtures.h), and scratch
// directories for workload tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "fixtures.h"
#include "scratch_cleanup.h"

namespace loom::workload::testing {

inline std::string fixture(const std::string& relative) { return ::loom::testing::fixture_path(relative).string(); }

inline bool has_fixture(const std::string& relative) { return std::filesystem::exists(fixture(relative)); }

#define LOOM_REQUIRE_FIXTURE(relative) LOOM_SKIP_WITHOUT_FIXTURE(::loom::workload::testing::fixture(relative))

// A fresh, empty directory under the system temp dir for files a test writes, one per process:
// test runs of other checkouts on the same machine must not share it.
inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("loom_workload_test_" + name + "." + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ::loom::testing::remove_at_exit(dir);
  return dir;
}

}  // namespace loom::workload::testing
