// Importers: the shared trace fixtures load with the counts their STATS.txt gives, and broken
// rows are reported with file:line, skipped and counted, or rejected.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "loom/cluster/machines.h"
#include "loom/cluster/trace_import.h"

namespace loom::cluster {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(LOOM_SOURCE_DIR) / "../shared/fixtures/cluster";

fs::path fixture(const std::string& relative) { return kFixtures / relative; }

#define SKIP_WITHOUT(path)                                                              \
  if (!fs::exists(path)) GTEST_SKIP() << "fixture " << (path).string() << " is absent"

TEST(AlibabaImport, PodListLoadsWithStatsCounts) {
  const fs::path file = fixture("alibaba-gpu-v2023-openb/openb_pod_list_default.csv");
  SKIP_WITHOUT(file);
  const Imported imported = read_alibaba_pods(file, BadRows::kReject);
  // STATS.txt: rows=8152; num_gpu 0: 1088; 897 Pending (never scheduled) of which 861 ask for
  // GPUs; 8152 - 1088 - 861 = 6203 pods with GPUs and a run time.
  EXPECT_EQ(imported.log.bad_rows(), 0u);
  EXPECT_EQ(imported.log.excluded_rows("CPU-only pods (num_gpu 0)"), 1088u);
  EXPECT_EQ(imported.log.excluded_rows("pods never scheduled (Pending: no run time)"), 861u);
  EXPECT_EQ(imported.jobs.size(), 6203u);
  EXPECT_EQ(imported.jobs.size() + imported.log.excluded_rows(), 8152u);
  std::uint64_t multi = 0, fractional = 0;
  double wait_sum = 0;
  for (const Job& job : imported.jobs) {
    multi += job.gpus > 1 ? 1 : 0;
    fractional += job.gpu_milli < 1000 ? 1 : 0;
    wait_sum += job.trace_wait->seconds();
  }
  EXPECT_LE(multi, 75u);  // STATS: 75 pods with 2-8 GPUs (some never scheduled)
  EXPECT_GT(fractional, 0u);
  EXPECT_LE(fractional, 3078u);  // STATS: 3,078 fractional pods in all
  // The first pod: LS, one whole GPU, created and scheduled at 0, deleted at 12,537,496 s.
  EXPECT_EQ(imported.jobs[0].id, "openb-pod-0000");
  EXPECT_EQ(*imported.jobs[0].duration, Span::s(12'537'496));
  EXPECT_EQ(imported.jobs[0].priority, 3);
}

TEST(AlibabaImport, NodeListsLoadWithStatsCounts) {
  const fs::path all = fixture("alibaba-gpu-v2023-openb/openb_node_list_all_node.csv");
  SKIP_WITHOUT(all);
  // STATS.txt: 1523 nodes total (1213 with GPUs), 6212 GPUs.
  const Machines m = machines_from_alibaba(all, Grouping{}, BadRows::kReject);
  EXPECT_EQ(m.hosts.size(), 1523u);
  EXPECT_EQ(m.gpu_count, 6212u);
  const Machines gpu = machines_from_alibaba(fixture("alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv"),
                                             Grouping{}, BadRows::kReject);
  EXPECT_EQ(gpu.hosts.size(), 1213u);
  EXPECT_EQ(gpu.gpu_count, 6212u);
  EXPECT_EQ(gpu.leaves.size(), (1213u + 15) / 16);
}

TEST(PhillyImport, RuntimesAndMachineListsLoadWithStatsCounts) {
  const fs::path runtimes = fixture("philly-derived/philly_runtime.csv");
  SKIP_WITHOUT(runtimes);
  const Runtimes r = read_philly_runtimes(runtimes, BadRows::kReject);
  EXPECT_EQ(r.durations.size(), 83154u);  // STATS: n=83154, max 4628239 s
  EXPECT_EQ(*std::max_element(r.durations.begin(), r.durations.end()), Span::s(4'628'239));
  // cluster_machine_list: 552 machines, 2490 GPUs (321 x 2 + 231 x 8).
  const Machines m = machines_from_philly(fixture("philly-derived/cluster_machine_list.csv"), Grouping{}, BadRows::kReject);
  EXPECT_EQ(m.hosts.size(), 552u);
  EXPECT_EQ(m.gpu_count, 2490u);
  // revised_machine_list: 552 machines, 3205 GPUs.
  const Machines revised =
      machines_from_philly(fixture("philly-derived/revised_machine_list.csv"), Grouping{}, BadRows::kReject);
  EXPECT_EQ(revised.hosts.size(), 552u);
  EXPECT_EQ(revised.gpu_count, 3205u);
}

class BrokenRows : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path path = fs::temp_directory_path() / ("loom_cluster_" + name);
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(BrokenRows, JobCsvSkipsAndCountsOrRejectsWithFileAndLine) {
  const fs::path file = write("jobs.csv",
                              "id,submit,gpus,duration,priority\n"
                              "a,0,8,3600,1\n"
                              "b,10,zero,60,0\n"
                              "\n"
                              "c,20,2,-5,0\n"
                              "d,30,1\n"
                              "e,40,4,7200,\n");
  const Imported skipped = read_job_csv(file, BadRows::kSkip);
  ASSERT_EQ(skipped.jobs.size(), 2u);
  EXPECT_EQ(skipped.jobs[1].id, "e");
  EXPECT_EQ(skipped.log.bad_rows(), 3u);
  const std::vector<std::string> warnings = skipped.log.warnings();
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("3 unusable rows"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(file.string() + ":3: gpus 'zero'"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find(file.string() + ":5: duration '-5'"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find(file.string() + ":6:"), std::string::npos) << warnings[2];
  try {
    read_job_csv(file, BadRows::kReject);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(std::string(e.what()).find(file.string() + ":3"), std::string::npos) << e.what();
  }
}

TEST_F(BrokenRows, AShareOfAGpuNeedsAOneGpuJob) {
  const fs::path file = write("shares.csv",
                              "id,submit,gpus,duration,gpu_milli\n"
                              "a,0,1,60,500\n"
                              "b,0,2,60,500\n"
                              "c,0,2,60,1000\n");
  const Imported imported = read_job_csv(file, BadRows::kSkip);
  ASSERT_EQ(imported.jobs.size(), 2u);
  EXPECT_TRUE(imported.jobs[0].shares_gpu());
  EXPECT_FALSE(imported.jobs[1].shares_gpu());
  ASSERT_EQ(imported.log.bad_rows(), 1u);
  ASSERT_FALSE(imported.log.warnings().empty());
  EXPECT_NE(imported.log.warnings()[0].find(file.string() + ":3: gpu_milli 500 is a share of one GPU"), std::string::npos)
      << imported.log.warnings()[0];
}

TEST_F(BrokenRows, MissingColumnsAndFilesAreUserErrors) {
  EXPECT_THROW(read_job_csv(write("nocol.csv", "id,submit,gpus\na,0,1\n"), BadRows::kSkip), UserError);
  EXPECT_THROW(read_job_csv("/nonexistent/jobs.csv", BadRows::kSkip), UserError);
  EXPECT_THROW(read_alibaba_pods(write("empty.csv", ""), BadRows::kSkip), UserError);
}

TEST_F(BrokenRows, AlibabaAndPhillyRowsNameTheirLine) {
  const fs::path pods = write("pods.csv",
                              "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                              "deletion_time,scheduled_time\n"
                              "p0,1000,1024,1,500,,BE,Running,0,100,10\n"
                              "p1,1000,1024,1,500,,BE,Running,50,40,45\n"
                              "p2,1000,1024,2,1000,,LS,Succeeded,0,100,\n");
  const Imported imported = read_alibaba_pods(pods, BadRows::kSkip);
  ASSERT_EQ(imported.jobs.size(), 1u);
  EXPECT_EQ(imported.jobs[0].gpu_milli, 500u);
  EXPECT_EQ(*imported.jobs[0].trace_wait, Span::s(10));
  EXPECT_EQ(imported.log.bad_rows(), 2u);
  EXPECT_THROW(read_alibaba_pods(pods, BadRows::kReject), UserError);
  const fs::path runtimes = write("runtime.csv", "runtime\n1.0\nabc\n3\n");
  const Runtimes r = read_philly_runtimes(runtimes, BadRows::kSkip);
  EXPECT_EQ(r.durations.size(), 2u);
  EXPECT_NE(r.log.warnings()[0].find(runtimes.string() + ":3:"), std::string::npos);
  const fs::path machines = write("machines.csv", "machineId, number of GPUs, single GPU mem\nm0,2, 12GB\nm1,x, 12GB\n");
  EXPECT_THROW(machines_from_philly(machines, Grouping{}, BadRows::kReject), UserError);
  EXPECT_EQ(machines_from_philly(machines, Grouping{}, BadRows::kSkip).hosts.size(), 1u);
}

}  // namespace
}  // namespace loom::cluster
