#include "loom/topology/blueprint_catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "loom/topology/blueprints.h"
#include "user_error.h"

namespace loom::topology {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using loom::testing::user_error_of;
using Values = TextParameterReader::Values;

std::vector<std::string_view> names() {
  std::vector<std::string_view> all;
  for (const BlueprintInfo& b : blueprint_catalog()) all.push_back(b.name);
  return all;
}

// Every parameter as "name = value" with the catalog's default.
Values documented_defaults(const BlueprintInfo& b) {
  Values values;
  for (const ParameterInfo& p : b.parameters) {
    values.emplace_back(std::string(p.name), std::string(p.default_value));
  }
  return values;
}

TEST(BlueprintCatalog, ListsEveryBlueprintInOrder) {
  EXPECT_THAT(names(), ElementsAre("single-switch", "leaf-spine", "clos", "fat-tree", "clos-ratio",
                                   "rail-optimized", "rail-dual-tor", "rail-dual-plane",
                                   "dcn-single-tor", "dcn-dual-tor"));
}

TEST(BlueprintCatalog, ParametersAreDocumentedOnceWithKnownUnits) {
  const std::set<std::string_view> units = {"count", "bandwidth", "time", "choice", "text"};
  for (const BlueprintInfo& b : blueprint_catalog()) {
    EXPECT_FALSE(b.doc.empty()) << b.name;
    std::set<std::string_view> seen;
    for (const ParameterInfo& p : b.parameters) {
      EXPECT_TRUE(seen.insert(p.name).second) << b.name << " repeats " << p.name;
      EXPECT_FALSE(p.doc.empty()) << b.name << "." << p.name;
      EXPECT_TRUE(units.contains(p.unit)) << b.name << "." << p.name << ": " << p.unit;
      EXPECT_EQ(p.unit == "choice", !p.choices.empty()) << b.name << "." << p.name;
    }
    // The host template's 12 parameters close every list, host_model first.
    ASSERT_GE(b.parameters.size(), 12u);
    EXPECT_EQ(b.parameters[b.parameters.size() - 12].name, "host_model") << b.name;
    EXPECT_EQ(b.parameters.back().name, "nic_latency") << b.name;
  }
}

TEST(BlueprintCatalog, KeepsTheKeysTheExperimentFileReads) {
  const BlueprintInfo& leaf_spine = blueprint_catalog()[1];
  std::vector<std::string_view> keys;
  for (const ParameterInfo& p : leaf_spine.parameters) keys.push_back(p.name);
  for (const char* key : {"hosts", "hosts_per_leaf", "spines", "links_per_pair",
                          "spine_link_bandwidth", "link_latency", "switch_latency",
                          "gpus_per_host", "nvlink_bandwidth", "nvlink_latency",
                          "nvswitch_latency", "pcie_bandwidth", "pcie_latency", "nic_bandwidth",
                          "nic_latency"}) {
    EXPECT_THAT(keys, ::testing::Contains(key));
  }
}

TEST(BlueprintCatalog, DocumentedDefaultsBuildTheDefaultTopology) {
  for (const BlueprintInfo& b : blueprint_catalog()) {
    TextParameterReader none;
    const Topology by_default = build_blueprint(b.name, none);
    TextParameterReader documented(documented_defaults(b));
    const Topology explicit_defaults = build_blueprint(b.name, documented);
    EXPECT_NO_THROW(documented.finish(b.name));
    EXPECT_EQ(explicit_defaults.node_count(), by_default.node_count()) << b.name;
    EXPECT_EQ(explicit_defaults.link_count(), by_default.link_count()) << b.name;
    EXPECT_NO_THROW(by_default.validate()) << b.name;
    // Recording the effective parameters of the defaults gives the catalog back.
    TextParameterReader again;
    ParameterRecorder recorder;
    effective_parameters(b.name, again, recorder);
    ASSERT_EQ(recorder.entries().size(), b.parameters.size());
    for (std::size_t i = 0; i < b.parameters.size(); ++i) {
      EXPECT_EQ(recorder.entries()[i].value, b.parameters[i].default_value);
    }
  }
}

TEST(BlueprintCatalog, HostPresetThenExplicitOverrides) {
  TextParameterReader source(Values{{"host-model", "dgx-a100"}, {"hosts", "2"}});
  ParameterRecorder recorder;
  effective_parameters("single-switch", source, recorder);
  std::map<std::string, std::string> values;
  for (const auto& e : recorder.entries()) values[e.name] = e.value;
  EXPECT_EQ(values["host_model"], "dgx-a100");
  EXPECT_EQ(values["nic_bandwidth"], "200Gbps");
  EXPECT_EQ(values["nvlink_bandwidth"], "2.4Tbps");
  EXPECT_EQ(values["pcie_bandwidth"], "256Gbps");

  TextParameterReader overridden(Values{{"host_model", "dgx-a100"}, {"nic_bandwidth", "100Gbps"}});
  ParameterRecorder second;
  effective_parameters("single-switch", overridden, second);
  for (const auto& e : second.entries()) values[e.name] = e.value;
  EXPECT_EQ(values["nic_bandwidth"], "100Gbps");
  EXPECT_EQ(values["pcie_bandwidth"], "256Gbps");
}

TEST(BlueprintCatalog, RejectsUnknownNamesAndBadValues) {
  TextParameterReader none;
  EXPECT_THAT(user_error_of([&] { build_blueprint("fat-tre", none); }),
              HasSubstr("unknown blueprint 'fat-tre' (did you mean 'fat-tree'?); expected one "
                        "of single-switch, leaf-spine"));
  TextParameterReader typo(Values{{"hots", "4"}});
  build_blueprint("single-switch", typo);
  EXPECT_THAT(user_error_of([&] { typo.finish("single-switch"); }),
              HasSubstr("unknown parameter 'hots' for blueprint single-switch (did you mean "
                        "'hosts'?)"));
  TextParameterReader bad_count(Values{{"hosts", "four"}});
  EXPECT_THAT(user_error_of([&] { build_blueprint("single-switch", bad_count); }),
              HasSubstr("hosts = 'four': expected a whole number"));
  TextParameterReader bad_bandwidth(Values{{"nic_bandwidth", "400"}});
  EXPECT_THAT(user_error_of([&] { build_blueprint("single-switch", bad_bandwidth); }),
              HasSubstr("nic_bandwidth: '400' is not a bandwidth"));
  TextParameterReader bad_choice(Values{{"scale_up", "tours-2d"}});
  EXPECT_THAT(user_error_of([&] { build_blueprint("single-switch", bad_choice); }),
              HasSubstr("scale_up = 'tours-2d': expected one of switch, fully-connected, ring, "
                        "torus-2d, torus-3d (did you mean 'torus-2d'?)"));
}

}  // namespace
}  // namespace loom::topology
