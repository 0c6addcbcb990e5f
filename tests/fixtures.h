// The shared fixtures (other tools' inputs and outputs, ../shared/fixtures beside the
// checkout): their directory is set once by CMake (LOOM_FIXTURES_DIR); a test that needs one
// skips with a message naming it when it is absent.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace loom::testing {

// `relative` under the fixture directory (no check that it exists).
inline std::filesystem::path fixture_path(const std::string& relative) {
  return std::filesystem::path(LOOM_FIXTURES_DIR) / relative;
}

}  // namespace loom::testing

// Skips the current test (GTEST_SKIP) when `fixture` (a fixture_path) does not exist.
#define LOOM_SKIP_WITHOUT_FIXTURE(fixture)                                                           \
  do {                                                                                               \
    if (!std::filesystem::exists(fixture)) {                                                         \
      GTEST_SKIP() << "fixture " << std::filesystem::path(fixture).string()                          \
                   << " is absent (the shared fixtures live in ../shared/fixtures beside the checkout)"; \
    }                                                                                                \
  } while (false)
