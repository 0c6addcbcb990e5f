// The summary's per-entry collective statistics come from the run's tally (system/
// collective_tally.h), kept as operations end: they equal those computed from the full record
// list, and a run that keeps no records (output.collectives off) reports the same entries.
#include <map>
#include <tuple>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "experiment/switch_comparison.h"
#include "fixtures.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;

// The entries as computed from every record: grouped by (label, group, op, size, members),
// the settings of the first record in the records' order (start, communicator, sequence).
void expect_entries_from_records(const Outcome& outcome, const workload::Workload& workload) {
  struct Expected {
    const system::CollectiveRecord* first = nullptr;
    std::uint64_t instances = 0;
    Time min, max;
    __extension__ __int128 total_ps = 0;
  };
  using Key = std::tuple<workload::LabelId, std::string, collective::CollectiveOp, Bytes, std::uint32_t>;
  std::map<Key, Expected> expected;
  for (const system::CollectiveRecord& r : outcome.result.collectives) {
    Expected& e = expected[Key{r.label, workload.communicator(r.communicator).group, r.op, r.bytes, r.members}];
    if (e.first == nullptr) e.first = &r, e.min = r.duration(), e.max = r.duration();
    ++e.instances;
    e.min = std::min(e.min, r.duration());
    e.max = std::max(e.max, r.duration());
    e.total_ps += r.duration().picoseconds();
  }
  ASSERT_GT(expected.size(), 1u);
  ASSERT_EQ(outcome.entries.size(), expected.size());
  EXPECT_EQ(outcome.result.collective_tally.operations(), outcome.result.collectives.size());
  std::size_t i = 0;
  for (const auto& [key, e] : expected) {
    const report::EntryStats& s = outcome.entries[i++];
    SCOPED_TRACE(s.label);
    EXPECT_EQ(s.label, workload.label(std::get<0>(key)));
    EXPECT_EQ(s.group, std::get<1>(key));
    EXPECT_EQ(s.op, std::get<2>(key));
    EXPECT_EQ(s.bytes, std::get<3>(key));
    EXPECT_EQ(s.members, std::get<4>(key));
    EXPECT_EQ(s.instances, e.instances);
    EXPECT_EQ(s.min_time, e.min);
    EXPECT_EQ(s.max_time, e.max);
    EXPECT_EQ(s.mean_time.picoseconds(), static_cast<std::int64_t>(e.total_ps / static_cast<std::int64_t>(e.instances)));
    EXPECT_EQ(s.algorithm, e.first->algorithm);
    EXPECT_EQ(s.protocol, e.first->protocol);
    EXPECT_EQ(s.channels, e.first->channels);
    EXPECT_EQ(s.chunks, e.first->chunks);
  }
}

// Runs `text` as switched::run_text does, keeping the experiment (its workload names entries).
struct Ran {
  Experiment experiment;
  Outcome outcome;
};
Ran run_keeping(const std::string& text, std::vector<std::string> overrides, const fs::path& dir) {
  config::Document document = config::Document::parse(text, "exp.yaml");
  overrides.push_back("output.dir=" + dir.string());
  for (const auto& o : overrides) document.apply_override(o);
  Ran ran{load(document), {}};
  ran.outcome = run(ran.experiment);
  return ran;
}

// With records and without: the same summary (entries, totals) and the same other files.
void expect_same_without_records(const std::string& name, const std::string& text, std::vector<std::string> overrides) {
  const fs::path with_dir = switched::scratch_dir(name + "_records"), without_dir = switched::scratch_dir(name + "_tally");
  const Ran ran = run_keeping(text, overrides, with_dir);
  const Outcome& with = ran.outcome;
  expect_entries_from_records(with, ran.experiment.workload);
  overrides.push_back("output.collectives=false");
  const Outcome without = switched::run_text(text, overrides, without_dir);
  EXPECT_TRUE(without.result.collectives.empty());
  EXPECT_FALSE(fs::exists(without_dir / "collectives.csv"));
  EXPECT_EQ(without.summary["entries"], with.summary["entries"]);
  EXPECT_EQ(without.summary["totals"], with.summary["totals"]);
  EXPECT_EQ(without.summary["metrics"], with.summary["metrics"]);
  for (const char* file : {"ranks.csv", "timeline.json"}) {
    EXPECT_TRUE(switched::read_file(with_dir / file) == switched::read_file(without_dir / file)) << file;
  }
  fs::remove_all(with_dir);
  fs::remove_all(without_dir);
}

TEST(CollectiveTally, TrainingEntriesEqualThoseFromEveryRecord) {
  for (const char* mode : {"analytical", "flow"}) {
    SCOPED_TRACE(mode);
    expect_same_without_records(std::string("training_") + mode, switched::small_training(mode),
                                {"workload.schedule=interleaved", "workload.virtual_stages=2", "output.flows=false"});
  }
}

TEST(CollectiveTally, SimaiEntriesEqualThoseFromEveryRecordWithRankSymmetry) {
  LOOM_SKIP_WITHOUT_FIXTURE(switched::simai_workload_path(switched::kSmallSimaiWorkloads[3].first));
  const auto& [file, gpus] = switched::kSmallSimaiWorkloads[3];
  expect_same_without_records("simai", switched::simai_experiment(file, gpus), {"system.symmetry=true", "output.flows=false"});
}

}  // namespace
}  // namespace loom::experiment
