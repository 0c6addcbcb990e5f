// `loom list` against the parameter tables the experiment reader uses.
#include <gtest/gtest.h>

#include <string>

#include "apps/loom_binary.h"
#include "loom/experiment/network_section.h"

namespace {

// `loom list` prints every flow and packet parameter of the tables the experiment reader uses,
// with its default.
TEST(Cli, ListPrintsEveryNetworkParameterWithItsDefault) {
  const cli_support::Result r = cli_support::run_loom("list");
  ASSERT_EQ(r.exit_code, 0);
  for (const auto mode : {loom::network::NetworkMode::kFlow, loom::network::NetworkMode::kPacket}) {
    const std::string heading = "network." + std::string(loom::network::to_string(mode)) + ".*";
    const std::size_t section = r.out.find(heading);
    ASSERT_NE(section, std::string::npos) << heading;
    for (const loom::ParamEntry& p : loom::experiment::network_parameter_catalog(mode)) {
      const std::size_t at = r.out.find("\n    " + p.key + " ", section);
      ASSERT_NE(at, std::string::npos) << p.key;
      const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
      EXPECT_NE(line.find(" " + p.unit + " "), std::string::npos) << line;
      if (!p.value.empty()) {
        EXPECT_NE(line.find(" " + p.value + " "), std::string::npos) << line;
      }
    }
  }
}

}  // namespace
