// `loom list` against the parameter tables the experiment reader uses.
#include <gtest/gtest.h>

#include <string>

#include "apps/loom_binary.h"
#include "loom/cluster/distribution.h"
#include "loom/cluster/failures.h"
#include "loom/cluster/placement.h"
#include "loom/cluster/scheduler.h"
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

// `loom list` names every cluster scheduler, placement, failure model and distribution the
// cluster section accepts, with the failure models' and distributions' parameters.
TEST(Cli, ListShowsTheClusterModelsWithTheirParameters) {
  const cli_support::Result r = cli_support::run_loom("list");
  ASSERT_EQ(r.exit_code, 0);
  const auto line_of = [&](const std::string& heading) {
    const std::size_t at = r.out.find(heading);
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  const std::string schedulers = line_of("schedulers (cluster.scheduler): ");
  for (const std::string_view name : loom::cluster::scheduler_names()) {
    EXPECT_NE(schedulers.find(name), std::string::npos) << name;
  }
  const std::string placements = line_of("placements (cluster.placement): ");
  for (const std::string_view name : loom::cluster::placement_names()) {
    EXPECT_NE(placements.find(name), std::string::npos) << name;
  }
  for (const loom::cluster::FailureModelInfo& f : loom::cluster::failure_model_catalog()) {
    EXPECT_NE(r.out.find(std::string(f.name)), std::string::npos) << f.name;
    EXPECT_NE(r.out.find(std::string(f.parameters)), std::string::npos) << f.name;
  }
  for (const loom::cluster::DistributionInfo& d : loom::cluster::distribution_catalog()) {
    EXPECT_NE(r.out.find(std::string(d.parameters)), std::string::npos) << d.name;
  }
}

}  // namespace
