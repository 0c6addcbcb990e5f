#include "loom/config/reader.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/experiment_schema.h"
#include "loom/config/document.h"
#include "loom/core/error.h"
#include "user_error.h"

namespace loom::config {
namespace {

using test_support::kExperiment;
using test_support::read_experiment;

// kExperiment with the first occurrence of `from` replaced by `to`.
std::string edited(std::string_view from, std::string_view to) {
  std::string text(kExperiment);
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test text not found: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The what() of the UserError raised by loading `text` as x.yaml, applying `overrides` and
// reading it with read_experiment; "no error" when everything succeeds.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return loom::testing::user_error_of([&] {
    Document doc = Document::parse(text, "x.yaml");
    for (const std::string& assignment : overrides) doc.apply_override(assignment);
    read_experiment(doc);
  });
}

struct ErrorCase {
  const char* name;
  std::string_view from;  // text of kExperiment to replace; empty for none
  std::string_view to;
  std::vector<std::string> overrides;
  std::string expected;  // the whole what(), location included
};

const ErrorCase kErrorCases[] = {
    {"misspelled key", "  mode: analytical\n", "  mode: analytical\n  bandwdith: 400Gbps\n", {},
     "x.yaml:9:3: unknown key 'bandwdith' in network; did you mean 'bandwidth'?"},
    {"misspelled key from --set", "", "", {"network.bandwdith=400Gbps"},
     "--set network.bandwdith=400Gbps: unknown key 'bandwdith' in network; did you mean "
     "'bandwidth'?"},
    {"unknown key, nothing close", "  mode: analytical\n", "  mode: analytical\n  colour: red\n",
     {}, "x.yaml:9:3: unknown key 'colour' in network; expected one of mode, bandwidth, latency"},
    {"unknown keys at the top level", "output:", "seeds: 3\nextra: 1\noutput:", {},
     "x.yaml:15:1: unknown key 'seeds' at the top level; did you mean 'seed'? (also unknown: "
     "'extra')"},
    {"misspelled key in a list item", "algorithm: ring", "algoritm: ring", {},
     "x.yaml:14:62: unknown key 'algoritm' in workload.collectives[0]; did you mean 'algorithm'?"},
    {"missing required key", "size: 64MiB, ", "", {},
     "x.yaml:14:7: missing required key 'size' in workload.collectives[0]; expected a size such "
     "as 64MiB"},
    {"missing required section", "network:\n  mode: analytical\n", "", {},
     "x.yaml:1:1: missing required key 'network' at the top level; expected a map of settings "
     "(key: value lines)"},
    {"misspelled required section", "network:\n", "netwrok:\n", {},
     "x.yaml:7:1: unknown key 'netwrok' at the top level; did you mean 'network'?"},
    {"misspelled required key", "size: 64MiB", "sizee: 64MiB", {},
     "x.yaml:14:38: unknown key 'sizee' in workload.collectives[0]; did you mean 'size'?"},
    {"wrong type", "repeat: 5", "repeat: ten", {},
     "x.yaml:14:59: workload.collectives[0].repeat: expected a non-negative integer, got 'ten'"},
    {"bare number for a bandwidth", "nic_bandwidth: 400Gbps", "nic_bandwidth: 400", {},
     "x.yaml:6:18: topology.nic_bandwidth: '400' is not a bandwidth: the number has no unit; "
     "expected e.g. 400Gbps, 100 Gb/s or 50GB/s"},
    {"bare number for a size", "size: 64MiB", "size: 67108864", {},
     "x.yaml:14:44: workload.collectives[0].size: '67108864' is not a size: the number has no "
     "unit; expected e.g. 16MiB, 1MB or 4096B"},
    {"negative count", "hosts: 4", "hosts: -4", {},
     "x.yaml:4:10: topology.hosts: expected a non-negative integer, got '-4'"},
    {"overflowing count", "seed: 7", "seed: 18446744073709551616", {},
     "x.yaml:1:7: seed: expected a non-negative integer between 0 and 18446744073709551615, got "
     "'18446744073709551616'"},
    {"map where a scalar is expected", "hosts: 4", "hosts: {count: 4}", {},
     "x.yaml:4:10: topology.hosts: expected a non-negative integer, got a map"},
    {"list where a scalar is expected", "hosts: 4", "hosts: [4]", {},
     "x.yaml:4:10: topology.hosts: expected a non-negative integer, got a list"},
    {"scalar where a map is expected", "network:\n  mode: analytical\n", "network: analytical\n",
     {}, "x.yaml:7:10: network: expected a map of settings (key: value lines), got 'analytical'"},
    {"scalar where a list is expected",
     "collectives:\n    - {op: all-reduce, group: world, size: 64MiB, repeat: 5, algorithm: ring}",
     "collectives: all", {},
     "x.yaml:13:16: workload.collectives: expected a list of maps (items starting with '- '), got "
     "'all'"},
    {"list item that is not a map", "- {op: all-reduce, group: world, size: 64MiB, repeat: 5, "
     "algorithm: ring}", "- all-reduce", {},
     "x.yaml:14:7: workload.collectives[0]: expected a map of settings (key: value lines), got "
     "'all-reduce'"},
    {"key without a value", "  hosts: 4\n", "  hosts:\n", {},
     "x.yaml:4:3: topology.hosts has no value; expected a non-negative integer"},
    {"misspelled choice", "leaf-spine", "leaf-spin", {},
     "x.yaml:3:14: topology.blueprint: unknown value 'leaf-spin'; expected one of leaf-spine, "
     "fat-tree, ring; did you mean 'leaf-spine'?"},
    {"unknown choice", "mode: analytical", "mode: quantum", {},
     "x.yaml:8:9: network.mode: unknown value 'quantum'; expected one of analytical, flow, packet"},
    {"duplicate key", "  hosts: 4\n", "  hosts: 4\n  hosts: 5\n", {},
     "x.yaml:5:3: duplicate key 'hosts' in topology (first given at x.yaml:4:3); each key may "
     "appear only once"},
    {"duplicate key in a flow map", "repeat: 5,", "repeat: 5, repeat: 6,", {},
     "x.yaml:14:62: duplicate key 'repeat' in workload.collectives[0] (first given at "
     "x.yaml:14:51); each key may appear only once"},
    {"key that is not a name", "  hosts: 4\n", "  hosts: 4\n  [a, b]: 5\n", {},
     "x.yaml:5:3: a key in topology must be a plain name, got a list"},
    {"wrong type from --set", "", "", {"topology.hosts=many"},
     "--set topology.hosts=many: topology.hosts: expected a non-negative integer, got 'many'"},
    {"bare number from --set", "", "", {"network.latency=5"},
     "--set network.latency=5: network.latency: '5' is not a time: the number has no unit; "
     "expected e.g. 1.5us, 500ns or 2ms"},
    {"misspelled choice from --set", "", "", {"network.mode=flo"},
     "--set network.mode=flo: network.mode: unknown value 'flo'; expected one of analytical, "
     "flow, packet; did you mean 'flow'?"},
    {"--set through a scalar", "", "", {"topology.hosts.count=4"},
     "--set topology.hosts.count=4: cannot set 'count' inside topology.hosts, which is '4' (at "
     "x.yaml:4:10), not a map"},
    {"--set creating an unknown section", "", "", {"tracing.enabled=true"},
     "--set tracing.enabled=true: unknown key 'tracing' at the top level; expected one of seed, "
     "topology, network, workload, output"},
    {"--set without '='", "", "", {"network.mode"},
     "--set network.mode: expected key.path=value, e.g. network.mode=flow"},
    {"--set with an empty key part", "", "", {"network..mode=flow"},
     "--set network..mode=flow: the key path 'network..mode' has an empty part; expected names "
     "joined by dots, e.g. network.mode=flow"},
    {"--set into a list item", "", "", {"workload.collectives[0].size=1MiB"},
     "--set workload.collectives[0].size=1MiB: 'collectives[0]' indexes a list; list items "
     "cannot be set one by one, set the whole list instead, e.g. key=[1, 2]"},
};

class ReaderError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ReaderError, SaysWhereWhatAndWhatWasExpected) {
  const ErrorCase& c = GetParam();
  EXPECT_EQ(error_of(c.from.empty() ? std::string(kExperiment) : edited(c.from, c.to),
                     c.overrides),
            c.expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, ReaderError, ::testing::ValuesIn(kErrorCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& param_info) {
                           std::string name;
                           for (const char* p = param_info.param.name; *p != '\0'; ++p) {
                             name += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
                           }
                           return name;
                         });

TEST(Reader, ErrorLocationIsStructured) {
  try {
    Document doc = Document::parse(edited("repeat: 5", "repeat: ten"), "x.yaml");
    read_experiment(doc);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().file, "x.yaml");
    EXPECT_EQ(e.where().line, 14);
    EXPECT_EQ(e.where().column, 59);
    EXPECT_EQ(e.message(), "workload.collectives[0].repeat: expected a non-negative integer, got 'ten'");
  }
}

TEST(Reader, ReadsTypedValues) {
  Document doc = Document::parse(kExperiment, "x.yaml");
  Reader root = doc.root();
  EXPECT_EQ(root.required<std::uint64_t>("seed"), 7u);
  EXPECT_EQ(root.required<std::int64_t>("seed"), 7);
  EXPECT_EQ(root.required<double>("seed"), 7.0);
  EXPECT_EQ(root.required<std::string>("seed"), "7");
  Reader topology = root.child("topology");
  EXPECT_EQ(topology.required<Bandwidth>("nic_bandwidth"), Bandwidth::gbps(400));
  EXPECT_EQ(topology.optional<std::uint64_t>("gpus_per_host", 1), 8u);
  EXPECT_EQ(topology.optional<std::uint64_t>("racks", 3), 3u);
  Reader collective = root.child("workload").list_of_maps("collectives").at(0);
  EXPECT_EQ(collective.required<Size>("size"), Bytes{64} << 20);
  EXPECT_EQ(collective.required<std::string>("op"), "all-reduce");
}

TEST(Reader, RecordsTheEffectiveConfigurationWithDefaultsAndCanonicalUnits) {
  Document doc = Document::parse(edited("nic_bandwidth: 400Gbps", "nic_bandwidth: 0.4 Tb/s"),
                                 "x.yaml");
  read_experiment(doc);
  const nlohmann::json expected = nlohmann::json::parse(R"({
    "seed": 7,
    "topology": {"blueprint": "leaf-spine", "hosts": 4, "gpus_per_host": 8,
                 "nic_bandwidth": "400Gbps"},
    "network": {"mode": "analytical", "bandwidth": "100Gbps", "latency": "500ns"},
    "workload": {"type": "microbenchmark", "groups": {"world": "all"},
                 "collectives": [{"op": "all-reduce", "group": "world", "size": "64MiB",
                                  "repeat": 5, "algorithm": "ring"}]},
    "output": {"dir": "results/x"}
  })");
  EXPECT_EQ(doc.effective(), expected) << doc.effective().dump(2);
}

TEST(Reader, EffectiveConfigurationHoldsOnlyWhatWasRead) {
  Document doc = Document::parse(kExperiment, "x.yaml");
  Reader root = doc.root();
  root.child("topology").required<std::uint64_t>("hosts");
  EXPECT_TRUE(root.has("output"));
  EXPECT_EQ(doc.effective(), nlohmann::json::parse(R"({"topology": {"hosts": 4}})"));
}

// A time with a word for zero: the word reads as zero, zero (read or defaulted) is recorded
// as the word, any other time as itself, and another word is refused naming both forms.
TEST(Reader, ATimeOrItsWordIsRecordedAsItReadsBack) {
  constexpr std::string_view kWord = "from line rate";
  Document doc = Document::parse("a: from line rate\nb: 12.5us\nc: 0ps\nd: auto\n", "w.yaml");
  Reader root = doc.root();
  EXPECT_EQ(root.optional_time_or_word("a", Time::us(1), kWord), Time::zero());
  EXPECT_EQ(root.optional_time_or_word("b", Time::zero(), kWord), Time::ns(12500));
  EXPECT_EQ(root.optional_time_or_word("c", Time::us(1), kWord), Time::zero());
  EXPECT_EQ(root.optional_time_or_word("absent", Time::zero(), kWord), Time::zero());
  EXPECT_EQ(root.optional_time_or_word("absent_set", Time::us(3), kWord), Time::us(3));
  EXPECT_EQ(doc.effective(), nlohmann::json::parse(R"({"a": "from line rate", "b": "12.5us", "c": "from line rate",
                                                        "absent": "from line rate", "absent_set": "3us"})"));
  EXPECT_EQ(loom::testing::user_error_of([&] { root.optional_time_or_word("d", Time::zero(), kWord); }),
            "w.yaml:4:4: d: expected a time such as 1.5us or 'from line rate', got 'auto'");
}

TEST(Reader, NullValuesAreAbsent) {
  Document doc = Document::parse("a:\nb: ~\nc: null\nd: {}\n", "n.yaml");
  Reader root = doc.root();
  EXPECT_FALSE(root.has("a"));
  EXPECT_EQ(root.optional<Time>("b", Time::us(2)), Time::us(2));
  EXPECT_FALSE(root.optional_child("c").has_value());
  EXPECT_TRUE(root.optional_child("d").has_value());
  EXPECT_FALSE(root.optional_child("e").has_value());
  doc.finish();
  EXPECT_EQ(doc.effective(), nlohmann::json::parse(R"({"b": "2us", "d": {}})"));
}

TEST(Reader, AbsentSectionsReadAsEmptyMaps) {
  Document doc = Document::parse("seed: 1\nnetwork:\nbad: 5\n", "s.yaml");
  Reader root = doc.root();
  root.required<std::int64_t>("seed");
  Reader output = root.child_or_empty("output");  // absent
  EXPECT_EQ(output.path(), "output");
  EXPECT_EQ(output.location().to_string(), "s.yaml:1:1");
  EXPECT_EQ(output.optional<std::string>("dir", "results"), "results");
  output.finish();
  EXPECT_EQ(root.child_or_empty("output").optional<std::uint64_t>("every", 2), 2u);  // again
  Reader network = root.child_or_empty("network");  // null
  EXPECT_EQ(network.location().to_string(), "s.yaml:2:1");
  EXPECT_EQ(network.choice("mode", {"analytical", "flow"}, "analytical"), "analytical");
  try {
    root.child_or_empty("bad");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "s.yaml:3:6: bad: expected a map of settings (key: value lines), got '5'");
  }
  doc.finish();
  EXPECT_EQ(doc.effective(), nlohmann::json::parse(R"({"seed": 1,
      "output": {"dir": "results", "every": 2}, "network": {"mode": "analytical"}})"));
  EXPECT_EQ(doc.root().keys(), (std::vector<std::string>{"seed", "network", "bad"}));
}

TEST(Reader, PathsAndLocations) {
  Document doc = Document::parse(edited("  hosts: 4\n", "  hosts:\n"), "x.yaml");
  Reader root = doc.root();
  EXPECT_EQ(root.path(), "");
  EXPECT_EQ(root.location().to_string(), "x.yaml:1:1");
  Reader topology = root.child("topology");
  EXPECT_EQ(topology.path(), "topology");
  EXPECT_EQ(topology.location().to_string(), "x.yaml:3:3");
  EXPECT_EQ(topology.location_of("nic_bandwidth").to_string(), "x.yaml:6:18");
  EXPECT_EQ(topology.location_of("hosts").to_string(), "x.yaml:4:3");  // null: at the key
  EXPECT_EQ(topology.location_of("racks").to_string(), "x.yaml:3:3");  // absent: at the map
  Reader collective = root.child("workload").list_of_maps("collectives").at(0);
  EXPECT_EQ(collective.path(), "workload.collectives[0]");
  EXPECT_EQ(collective.location().to_string(), "x.yaml:14:7");
  EXPECT_EQ(collective.location_of("size").to_string(), "x.yaml:14:44");
}

TEST(Reader, FailBlamesTheKeyOrTheMap) {
  Document doc = Document::parse(kExperiment, "x.yaml");
  Reader root = doc.root();
  Reader collective = root.child("workload").list_of_maps("collectives").at(0);
  try {
    collective.fail("group", "no group named 'world' has 3 members");
    FAIL() << "fail() returned";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "x.yaml:14:31: workload.collectives[0].group: no group named 'world' has 3 "
                 "members");
  }
  try {
    root.child("topology").fail("", "leaf-spine needs an even number of hosts");
    FAIL() << "fail() returned";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "x.yaml:3:3: topology: leaf-spine needs an even number of hosts");
  }
}

TEST(Reader, ListsOfScalars) {
  Document doc = Document::parse("sizes: [1KiB, 2KiB, 3MB]\nbad: [1, two]\nnot_list: 5\n",
                                 "l.yaml");
  Reader root = doc.root();
  EXPECT_EQ(root.list<Size>("sizes"), (std::vector<Bytes>{1024, 2048, 3'000'000}));
  EXPECT_EQ(doc.effective()["sizes"], nlohmann::json::parse(R"(["1KiB", "2KiB", "3MB"])"));
  try {
    root.list<std::int64_t>("bad");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "l.yaml:2:10: bad[1]: expected an integer, got 'two'");
  }
  try {
    root.list<std::int64_t>("not_list");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "l.yaml:3:11: not_list: expected a list, each item an integer, got '5'");
  }
}

TEST(Reader, KeysInDocumentOrderAndUserChosenNames) {
  Document doc = Document::parse("groups:\n  zeta: all\n  alpha: [0, 1]\n  mid: x\n", "g.yaml");
  Reader groups = doc.root().child("groups");
  EXPECT_EQ(groups.keys(), (std::vector<std::string>{"zeta", "alpha", "mid"}));
  groups.required<std::string>("zeta");
  groups.list<std::uint64_t>("alpha");
  try {
    groups.finish();
    FAIL() << "'mid' was never read";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "g.yaml:4:3: unknown key 'mid' in groups; expected one of zeta, alpha");
  }
}

TEST(Reader, HasCountsAsKnownAndCopiesShareBookkeeping) {
  Document doc = Document::parse("a: 1\nb: 2\nc: 3\n", "h.yaml");
  Reader root = doc.root();
  Reader copy = root;
  EXPECT_TRUE(copy.has("a"));
  copy.required<std::int64_t>("b");
  EXPECT_THROW(root.finish(), UserError);  // 'c' is still unknown
  root.optional<std::int64_t>("c", 0);
  root.finish();
  doc.finish();
}

TEST(Reader, NoKeysExpectedInAnUnreadMap) {
  Document doc = Document::parse("a: {b: 1}\n", "e.yaml");
  doc.root().child("a");
  try {
    doc.finish();
    FAIL() << "'b' was never read";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "e.yaml:1:5: unknown key 'b' in a; no keys are expected there");
  }
}

TEST(Reader, ReadingTheSameSectionTwiceKeepsReadersValid) {
  Document doc = Document::parse(kExperiment, "x.yaml");
  Reader root = doc.root();
  std::vector<Reader> first = root.child("workload").list_of_maps("collectives");
  std::vector<Reader> second = root.child("workload").list_of_maps("collectives");
  first.at(0).required<Size>("size");
  second.at(0).required<std::uint64_t>("repeat");
  EXPECT_EQ(doc.effective()["workload"]["collectives"],
            nlohmann::json::parse(R"([{"size": "64MiB", "repeat": 5}])"));
}

TEST(Reader, ReadersSurviveMovingTheDocument) {
  Document doc = Document::parse(kExperiment, "x.yaml");
  Reader topology = doc.root().child("topology");
  Document moved = std::move(doc);
  EXPECT_EQ(topology.required<std::uint64_t>("hosts"), 4u);
  EXPECT_EQ(moved.effective()["topology"]["hosts"], 4);
}

TEST(Reader, ChoiceAcceptsArraysAndDefaults) {
  constexpr std::array<std::string_view, 3> kModes = {"analytical", "flow", "packet"};
  Document doc = Document::parse("mode: packet\n", "c.yaml");
  Reader root = doc.root();
  EXPECT_EQ(root.choice("mode", kModes), "packet");
  EXPECT_EQ(root.choice("routing", {"ecmp", "single-path"}, "ecmp"), "ecmp");
  EXPECT_EQ(doc.effective(), nlohmann::json::parse(R"({"mode": "packet", "routing": "ecmp"})"));
  EXPECT_THROW(root.choice("missing", kModes), UserError);
  EXPECT_THROW(root.choice("routing", {"ecmp"}, "spray"), InternalError);  // a program bug
}

}  // namespace
}  // namespace loom::config
