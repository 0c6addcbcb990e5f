#include "loom/config/document.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "config/experiment_schema.h"
#include "loom/core/error.h"
#include "user_error.h"

namespace loom::config {
namespace {

using test_support::kExperiment;
using test_support::read_experiment;

std::string parse_error(std::string_view text) {
  return loom::testing::user_error_of([&] { Document::parse(text, "x.yaml"); });
}

std::string write_temp_file(const std::string& name, std::string_view text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(Document, LoadsAFile) {
  const std::string path = write_temp_file("loom_config_exp.yaml", kExperiment);
  Document doc = Document::load_file(path);
  EXPECT_EQ(doc.source_name(), path);
  read_experiment(doc);
  EXPECT_EQ(doc.effective()["topology"]["hosts"], 4);
}

TEST(Document, ReportsFilesThatCannotBeRead) {
  try {
    Document::load_file("no/such/x.yaml");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "cannot open experiment file 'no/such/x.yaml': No such file or directory");
  }
  try {
    Document::load_file(::testing::TempDir(), "topology file");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message(),
              "cannot read topology file '" + ::testing::TempDir() + "': Is a directory");
  }
}

TEST(Document, LocatesYamlSyntaxErrorsInFiles) {
  const std::string path = write_temp_file("loom_config_bad.yaml", "a: 1\nb: [1, 2\nc: 3\n");
  try {
    Document::load_file(path);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().file, path);
    // yaml-cpp notices the unclosed list where the next key starts.
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().column, 2);
    EXPECT_EQ(e.message(), "YAML syntax error: end of sequence flow not found");
  }
}

struct ParseErrorCase {
  std::string_view text;
  std::string expected;
};

TEST(Document, RejectsDocumentsThatAreNotOneMap) {
  const ParseErrorCase cases[] = {
      {"", "x.yaml: the file is empty; expected a map of settings (key: value lines)"},
      {"# only a comment\n\n",
       "x.yaml: the file is empty; expected a map of settings (key: value lines)"},
      {"- a\n- b\n",
       "x.yaml:1:1: the top level must be a map of settings (key: value lines), got a list"},
      {"just text\n",
       "x.yaml:1:1: the top level must be a map of settings (key: value lines), got 'just text'"},
      {"a: 1\n---\nb: 2\n",
       "x.yaml:2:1: a second YAML document starts here; expected a single document (remove the "
       "'---' separator or split the file)"},
      {"a: &x [1, *x]\n",
       "x.yaml:1:11: this alias refers to the value that contains it; recursive aliases are not "
       "supported"},
      {"a: [\n", "x.yaml:2:1: YAML syntax error: end of sequence flow not found"},
      {"a: b: c\n",
       "x.yaml:1:5: YAML syntax error: illegal map value (a second ': ' on one line: quote values "
       "that contain ': ', or check the indentation)"},
      {"a:\n  b: 1\n c: 2\n",
       "x.yaml:3:2: YAML syntax error: end of map not found (check the indentation of this line)"},
      {"- a\nb: 1\n",
       "x.yaml:2:1: this line does not continue the YAML structure above it; expected a single "
       "map of settings (check the indentation and the '- ' list markers)"},
      {"a:\n\tb: 1\n",
       "x.yaml:2:3: YAML syntax error: illegal map value (line 2 is indented with a tab; YAML "
       "indentation must use spaces)"},
      {"a: \"caf\xc3\"\n",
       "x.yaml:1:4: this text is not valid UTF-8; expected a UTF-8 encoded file"},
      {"a: x\nb: \"\\uD800\"\n", "x.yaml:2:11: YAML syntax error: invalid unicode: 55296"},
      {"a: 1\na: 2\n",
       "x.yaml:2:1: duplicate key 'a' at the top level (first given at x.yaml:1:1); each key may "
       "appear only once"},
  };
  for (const ParseErrorCase& c : cases) {
    EXPECT_EQ(parse_error(c.text), c.expected) << c.text;
  }
}

TEST(Document, BoundsAliasExpansion) {
  // Each level doubles the previous one 8 times: 8^7 values if expanded.
  std::string text = "l0: &l0 [x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 7; ++level) {
    text += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 8; ++i) text += (i ? ", *l" : "*l") + std::to_string(level - 1);
    text += "]\n";
  }
  EXPECT_NE(parse_error(text).find("aliases expand to more than 100000 values"),
            std::string::npos);
}

TEST(Document, ResolvesAliases) {
  Document doc = Document::parse("base: &b {mode: flow, latency: 1us}\nrun: *b\n", "a.yaml");
  Reader run = doc.root().child("run");
  EXPECT_EQ(run.required<std::string>("mode"), "flow");
  EXPECT_EQ(run.required<Time>("latency"), Time::us(1));
  EXPECT_EQ(run.location().to_string(), "a.yaml:2:6");
}

TEST(Document, OverridesReplaceAndCreateValues) {
  Document doc = Document::parse(kExperiment, "x.yaml");
  doc.apply_override("network.bandwidth=800Gbps");        // new key in an existing map
  doc.apply_override("topology.hosts=16");                // replaced value
  doc.apply_override(" output.dir = results/y ");         // spaces around the parts
  doc.apply_override("workload.groups={world: all, pair: [0, 1]}");  // flow map replaces a map
  doc.apply_override("extra.deep.key=[1, 2]");           // missing maps are created
  EXPECT_EQ(doc.overrides(), (std::vector<std::string>{
                                 "network.bandwidth=800Gbps", "topology.hosts=16",
                                 " output.dir = results/y ",
                                 "workload.groups={world: all, pair: [0, 1]}",
                                 "extra.deep.key=[1, 2]"}));
  Reader root = doc.root();
  EXPECT_EQ(root.child("network").optional<Bandwidth>("bandwidth", Bandwidth{}),
            Bandwidth::gbps(800));
  EXPECT_EQ(root.child("topology").required<std::uint64_t>("hosts"), 16u);
  EXPECT_EQ(root.child("output").required<std::string>("dir"), "results/y");
  Reader groups = root.child("workload").child("groups");
  EXPECT_EQ(groups.keys(), (std::vector<std::string>{"world", "pair"}));
  EXPECT_EQ(groups.list<std::uint64_t>("pair"), (std::vector<std::uint64_t>{0, 1}));
  Reader deep = root.child("extra").child("deep");
  EXPECT_EQ(deep.list<std::int64_t>("key"), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(deep.location().to_string(), "--set extra.deep.key=[1, 2]");
  EXPECT_EQ(doc.effective()["network"]["bandwidth"], "800Gbps");
}

TEST(Document, OverrideToNothingRestoresTheDefault) {
  Document doc = Document::parse("network:\n  latency: 5us\n", "x.yaml");
  doc.apply_override("network.latency=");
  EXPECT_EQ(doc.root().child("network").optional<Time>("latency", Time::ns(500)), Time::ns(500));
}

TEST(Document, OverrideIntoANullSectionMakesAMap) {
  Document doc = Document::parse("network:\nseed: 1\n", "x.yaml");
  doc.apply_override("network.mode=flow");
  EXPECT_EQ(doc.root().child("network").required<std::string>("mode"), "flow");
}

TEST(Document, OverrideWithInvalidYamlIsLocatedAtTheOverride) {
  Document doc = Document::parse(kExperiment, "x.yaml");
  try {
    doc.apply_override("network.mode=[flow");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().to_string(), "--set network.mode=[flow");
    EXPECT_EQ(e.message().rfind("YAML syntax error: ", 0), 0u) << e.message();
  }
}

TEST(Document, OverridesAfterReadingAreAProgramBug) {
  Document doc = Document::parse(kExperiment, "x.yaml");
  doc.root();
  EXPECT_THROW(doc.apply_override("seed=1"), InternalError);
}

TEST(Document, FinishChecksMapsThatWereReadInDocumentOrder) {
  Document doc = Document::parse("b: 1\nc: {d: 1}\n", "x.yaml");
  doc.root().child("c");
  try {
    doc.finish();
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    // A one-letter key is not "corrected" to another letter.
    EXPECT_STREQ(e.what(), "x.yaml:1:1: unknown key 'b' at the top level; expected one of c");
  }
}

TEST(Document, FinishLeavesMapsNobodyOpenedAlone) {
  Document doc = Document::parse("a: 1\nopaque: {anything: 1}\n", "x.yaml");
  Reader root = doc.root();
  root.required<std::int64_t>("a");
  EXPECT_TRUE(root.has("opaque"));
  EXPECT_NO_THROW(doc.finish());
}

TEST(Document, FinishReportsNestedUnknownKeysAtTheOverride) {
  Document doc = Document::parse("workload:\n  type: x\n", "x.yaml");
  doc.apply_override("workload.collectives=[{op: all-reduce, repaet: 2}]");
  Reader workload = doc.root().child("workload");
  workload.required<std::string>("type");
  for (Reader c : workload.list_of_maps("collectives")) {
    c.required<std::string>("op");
    c.optional<std::uint64_t>("repeat", 1);
  }
  try {
    doc.finish();
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "--set workload.collectives=[{op: all-reduce, repaet: 2}]: unknown key 'repaet' "
                 "in workload.collectives[0]; did you mean 'repeat'?");
  }
}

}  // namespace
}  // namespace loom::config
