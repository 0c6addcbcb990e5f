// Scratch directories a test process made under the system temp dir are removed when the
// process ends, so that repeated test runs do not fill the disk.
#pragma once

#include <filesystem>
#include <mutex>
#include <system_error>
#include <vector>

namespace loom::testing {

inline void remove_at_exit(const std::filesystem::path& dir) {
  struct Registry {
    std::mutex mutex;
    std::vector<std::filesystem::path> dirs;
    ~Registry() {
      for (const std::filesystem::path& d : dirs) {
        std::error_code ignored;  // a directory a test removed itself is fine
        std::filesystem::remove_all(d, ignored);
      }
    }
  };
  static Registry registry;
  const std::lock_guard<std::mutex> lock(registry.mutex);
  registry.dirs.push_back(dir);
}

}  // namespace loom::testing
