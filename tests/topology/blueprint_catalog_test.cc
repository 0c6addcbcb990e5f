#include "loom/topology/blueprint_catalog.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <variant>

#include "loom/topology/blueprints.h"

namespace loom::topology {
namespace {

using Value = std::variant<std::uint64_t, Bandwidth, Time>;

// The struct defaults, keyed by catalog name, written out field by field.
std::map<std::string, Value> host_defaults() {
  const HostParams h;
  return {{"gpus_per_host", std::uint64_t{h.gpus_per_host}},
          {"nvlink_bandwidth", h.nvlink_bandwidth},
          {"nvlink_latency", h.nvlink_latency},
          {"nvswitch_latency", h.nvswitch_latency},
          {"pcie_bandwidth", h.pcie_bandwidth},
          {"pcie_latency", h.pcie_latency},
          {"nic_bandwidth", h.nic_bandwidth},
          {"nic_latency", h.nic_latency}};
}

std::map<std::string, Value> defaults_of(std::string_view blueprint) {
  std::map<std::string, Value> values = host_defaults();
  if (blueprint == "single-switch") {
    const SingleSwitchParams p;
    values.insert({{"hosts", std::uint64_t{p.hosts}},
                   {"link_latency", p.link_latency},
                   {"switch_latency", p.switch_latency}});
  } else if (blueprint == "leaf-spine") {
    const LeafSpineParams p;
    values.insert({{"hosts", std::uint64_t{p.hosts}},
                   {"hosts_per_leaf", std::uint64_t{p.hosts_per_leaf}},
                   {"spines", std::uint64_t{p.spines}},
                   {"links_per_pair", std::uint64_t{p.links_per_pair}},
                   {"spine_link_bandwidth", p.spine_link_bandwidth},
                   {"link_latency", p.link_latency},
                   {"switch_latency", p.switch_latency}});
  } else {
    ADD_FAILURE() << "blueprint without expected defaults: " << blueprint;
  }
  return values;
}

Value parse(const ParameterInfo& info) {
  const std::string text(info.default_value);
  if (info.unit == "count") return std::uint64_t{std::stoull(text)};
  if (info.unit == "bandwidth") return parse_bandwidth(text);
  EXPECT_EQ(info.unit, "time") << info.name;
  return parse_time(text);
}

TEST(BlueprintCatalog, ListsBothBlueprints) {
  const auto catalog = blueprint_catalog();
  ASSERT_EQ(catalog.size(), 2u);
  EXPECT_EQ(catalog[0].name, "single-switch");
  EXPECT_EQ(catalog[1].name, "leaf-spine");
  EXPECT_EQ(catalog[0].parameters.size(), 3u + 8u);
  EXPECT_EQ(catalog[1].parameters.size(), 7u + 8u);
}

TEST(BlueprintCatalog, DefaultsMatchTheParameterStructs) {
  for (const BlueprintInfo& blueprint : blueprint_catalog()) {
    EXPECT_FALSE(blueprint.doc.empty());
    std::map<std::string, Value> expected = defaults_of(blueprint.name);
    std::set<std::string_view> seen;
    for (const ParameterInfo& info : blueprint.parameters) {
      EXPECT_TRUE(seen.insert(info.name).second) << "duplicate " << info.name;
      EXPECT_FALSE(info.doc.empty()) << info.name;
      const auto it = expected.find(std::string(info.name));
      ASSERT_NE(it, expected.end()) << blueprint.name << " lists unknown " << info.name;
      EXPECT_EQ(parse(info), it->second) << blueprint.name << "." << info.name;
      expected.erase(it);
    }
    for (const auto& [name, value] : expected) {
      ADD_FAILURE() << blueprint.name << " does not list " << name;
    }
  }
}

}  // namespace
}  // namespace loom::topology
