// Where the shared reference plans live (../shared/fixtures/msccl beside the checkout).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace loom::collective::msccl::testing {

inline std::string fixture_dir() { return LOOM_SOURCE_DIR "/../shared/fixtures/msccl"; }
inline bool have_fixtures() { return std::filesystem::is_directory(fixture_dir()); }
inline std::string fixture(const std::string& relative) { return fixture_dir() + "/" + relative; }

inline const std::vector<std::string>& fixture_plans() {
  static const std::vector<std::string> kPlans{
      "mscclpp_plans_current_format/allreduce_packet.json",
      "mscclpp_plans_current_format/transfer_pack.json",
      "mscclpp_plans_current_format/reduce.json",
      "mscclpp_plan_legacy_format/allreduce_packet.at-88d28e07.json",
      "msccl_xml/astra-sim_custom_allreduce_ring_8gpus.xml",
      "msccl_xml/collectiveapi_allgather_hierarchical_8gpus.xml",
  };
  return kPlans;
}

#define LOOM_REQUIRE_FIXTURES()                                                                           \
  do {                                                                                                    \
    if (!::loom::collective::msccl::testing::have_fixtures()) {                                           \
      GTEST_SKIP() << "shared fixtures not found at " << ::loom::collective::msccl::testing::fixture_dir() \
                   << "; this test needs ../shared/fixtures/msccl beside the checkout";                   \
    }                                                                                                     \
  } while (false)

}  // namespace loom::collective::msccl::testing
