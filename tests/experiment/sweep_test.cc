// Sweep variants: grid order, --vary parsing, variants files and folder names.
#include "loom/experiment/sweep.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "loom/core/error.h"
#include "user_error.h"

#include <gmock/gmock.h>

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using loom::testing::user_error_of;

#define EXPECT_USER_ERROR(expr, text) EXPECT_THAT(user_error_of([&] { (void)(expr); }), HasSubstr(text))

std::vector<std::string> names(const std::vector<SweepVariant>& variants) {
  std::vector<std::string> out;
  for (const SweepVariant& v : variants) out.push_back(v.name);
  return out;
}

fs::path scratch_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("loom_sweep_test." + std::to_string(getpid()) + name);
  std::ofstream(path) << text;
  return path;
}

TEST(Sweep, GridIsTheProductWithTheFirstAxisSlowest) {
  const auto variants = expand_grid({parse_vary("topology.hosts=2,4"), parse_vary("network.mode=analytical,flow,packet")});
  ASSERT_EQ(variants.size(), 6u);
  EXPECT_EQ(names(variants), (std::vector<std::string>{"hosts-2_mode-analytical", "hosts-2_mode-flow",
                                                       "hosts-2_mode-packet", "hosts-4_mode-analytical",
                                                       "hosts-4_mode-flow", "hosts-4_mode-packet"}));
  EXPECT_EQ(variants[4].settings[0].key, "topology.hosts");
  EXPECT_EQ(variants[4].settings[0].value, "4");
  EXPECT_EQ(variants[4].settings[1].key, "network.mode");
  EXPECT_EQ(variants[4].settings[1].value, "flow");
  EXPECT_EQ(sweep_keys(variants), (std::vector<std::string>{"topology.hosts", "network.mode"}));
}

TEST(Sweep, CommasInsideListsMapsAndQuotesDoNotSplitValues) {
  const SweepAxis axis = parse_vary(" workload.variation.compute_slowdown = [1, 2], {a: 1, b: 2} ,'x,y'");
  EXPECT_EQ(axis.key, "workload.variation.compute_slowdown");
  EXPECT_EQ(axis.values, (std::vector<std::string>{"[1, 2]", "{a: 1, b: 2}", "'x,y'"}));
}

TEST(Sweep, BadVaryTextIsAnErrorNamingIt) {
  EXPECT_USER_ERROR(parse_vary("topology.hosts"), "--vary topology.hosts: expected key=v1,v2,...");
  EXPECT_USER_ERROR(parse_vary("=1,2"), "is not a key path");
  EXPECT_USER_ERROR(parse_vary("topology..hosts=1"), "is not a key path");
  EXPECT_USER_ERROR(parse_vary("topology.hosts=1,,2"), "an empty value");
  EXPECT_USER_ERROR(expand_grid({parse_vary("a.b=1"), parse_vary("a.b=2")}), "varied twice");
}

TEST(Sweep, NamesAreSafeAndUniqueFolderNames) {
  const auto variants = expand_grid({parse_vary("network.flow.mtu=1KiB,2KiB"), parse_vary("network.packet.mtu=1KiB"),
                                     parse_vary("output.dir=a/b,a_b,../x")});
  const std::vector<std::string> all = names(variants);
  const std::set<std::string> unique(all.begin(), all.end());
  EXPECT_EQ(unique.size(), variants.size());
  // Keys with the same last part are named in full; '/' and '..' never reach a name.
  EXPECT_EQ(variants[0].name, "network.flow.mtu-1KiB_network.packet.mtu-1KiB_dir-a_b");
  EXPECT_EQ(variants[1].name, "network.flow.mtu-1KiB_network.packet.mtu-1KiB_dir-a_b~2");
  EXPECT_EQ(variants[2].name, "network.flow.mtu-1KiB_network.packet.mtu-1KiB_dir-.._x");
  for (const SweepVariant& v : variants) {
    EXPECT_EQ(v.name.find('/'), std::string::npos) << v.name;
    EXPECT_LE(v.name.size(), kMaxNameLength);
  }
}

TEST(Sweep, LongNamesAreCutWithAHashOfTheFullText) {
  const std::string long_a(200, 'a');
  const auto variants = expand_grid({parse_vary("workload.x=" + long_a + "1," + long_a + "2")});
  EXPECT_EQ(variants[0].name.size(), kMaxNameLength);
  EXPECT_EQ(variants[1].name.size(), kMaxNameLength);
  EXPECT_NE(variants[0].name, variants[1].name);
  EXPECT_EQ(variants[0].name.substr(0, 40), "x-" + std::string(38, 'a'));
}

TEST(Sweep, ReadsVariantsFromYamlAndCsv) {
  const auto yaml = read_variants(scratch_file("v.yaml", "- {topology.hosts: 2, collective.algorithm: ring}\n"
                                                         "- {topology.hosts: 4, workload.collectives: [{op: "
                                                         "all-reduce, size: 1MiB}]}\n"));
  ASSERT_EQ(yaml.size(), 2u);
  EXPECT_EQ(yaml[0].name, "hosts-2_algorithm-ring");
  EXPECT_EQ(yaml[1].settings[1].value, "[{op: all-reduce, size: 1MiB}]");
  EXPECT_EQ(sweep_keys(yaml),
            (std::vector<std::string>{"topology.hosts", "collective.algorithm", "workload.collectives"}));
  const auto csv = read_variants(scratch_file("v.csv", "topology.hosts,network.mode\n2,flow\n\n\"4\",analytical\n"));
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(names(csv), (std::vector<std::string>{"hosts-2_mode-flow", "hosts-4_mode-analytical"}));
}

TEST(Sweep, BadVariantsFilesAreLocatedErrors) {
  const fs::path short_row = scratch_file("short.csv", "topology.hosts,network.mode\n2,flow\n3\n");
  EXPECT_USER_ERROR(read_variants(short_row), short_row.string() + ":3: 1 values for 2 keys");
  const fs::path not_list = scratch_file("map.yaml", "topology.hosts: 2\n");
  EXPECT_USER_ERROR(read_variants(not_list), "expected a list of variants");
  const fs::path scalar_item = scratch_file("item.yaml", "- {topology.hosts: 2}\n- 3\n");
  EXPECT_USER_ERROR(read_variants(scalar_item), scalar_item.string() + ":2:3: expected a variant");
  EXPECT_USER_ERROR(read_variants(scratch_file("empty.csv", "topology.hosts\n")), "lists no variant");
  EXPECT_USER_ERROR(read_variants(scratch_file("v.txt", "x")), "expected a variants file ending in");
  EXPECT_USER_ERROR(read_variants("/nonexistent/v.yaml"), "cannot open variants file");
}

}  // namespace
}  // namespace loom::experiment
