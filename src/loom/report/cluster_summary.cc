#include <algorithm>

#include "loom/core/build_info.h"
#include "loom/report/cluster_outputs.h"

namespace loom::report {

namespace {
// Mean, median and 99th percentile (nearest rank) of `values` in seconds.
nlohmann::json distribution(std::vector<double> values) {
  if (values.empty()) return nullptr;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  const auto rank = [&](double q) {
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(i, 1, values.size()) - 1];
  };
  return {{"count", values.size()}, {"mean", sum / static_cast<double>(values.size())}, {"p50", rank(0.5)},
          {"p99", rank(0.99)}, {"max", values.back()}};
}
}  // namespace

nlohmann::json make_cluster_summary(const ClusterRunInfo& info, const cluster::Machines& machines,
                                    const std::vector<cluster::Job>& jobs, const cluster::JobModeResult& result,
                                    const std::vector<WrittenFile>& files) {
  std::vector<double> waits, jcts, trace_waits;
  double useful_gpu_s = 0, lost_gpu_s = 0, overhead_gpu_s = 0;
  std::uint64_t preemptions = 0, job_failures = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const cluster::JobRecord& r = result.jobs[i];
    const double gpus = jobs[i].gpu_fraction();
    lost_gpu_s += r.lost_work.seconds() * gpus;
    overhead_gpu_s += r.overhead.seconds() * gpus;
    preemptions += r.preemptions;
    job_failures += r.failures;
    if (jobs[i].trace_wait) trace_waits.push_back(jobs[i].trace_wait->seconds());
    if (!r.end) continue;
    waits.push_back(r.wait.seconds());
    jcts.push_back((*r.end - jobs[i].submit).seconds());
    useful_gpu_s += jobs[i].duration->seconds() * gpus;
  }
  const double capacity = machines.gpu_count * result.makespan.seconds();
  const auto share = [&](double gpu_s) { return capacity > 0 ? gpu_s / capacity : 0.0; };
  nlohmann::json outputs = nlohmann::json::array();
  for (const WrittenFile& f : files) {
    outputs.push_back({{"file", f.path.filename().string()}, {"rows", f.rows}, {"rows_left_out", f.dropped}});
  }
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& s : info.sources) {
    sources.push_back({{"source", s.source}, {"jobs", s.jobs}, {"bad_rows_skipped", s.bad_rows},
                       {"rows_left_out", s.excluded_rows}});
  }
  const auto hours = [](double s) { return s / 3600; };
  nlohmann::json summary = {
      {"loom", {{"version", kVersion}, {"git_sha", kGitSha}}},
      {"seed", info.seed},
      {"config", info.effective_config},
      {"mode", info.mode},
      {"cluster", {{"hosts", machines.hosts.size()}, {"gpus", machines.gpu_count}, {"leaves", machines.leaves.size()},
                   {"pods", machines.pod_count}}},
      {"jobs", {{"count", jobs.size()}, {"finished", jcts.size()}, {"unfinished", jobs.size() - jcts.size()},
                {"sources", sources}}},
      {"wait_s", distribution(waits)},
      {"jct_s", distribution(jcts)},
      {"trace_wait_s", distribution(trace_waits)},
      {"makespan_s", result.makespan.seconds()},
      {"utilisation", share(result.busy_gpu_s)},
      {"goodput", share(useful_gpu_s)},
      {"gpu_hours", {{"capacity", hours(capacity)}, {"busy", hours(result.busy_gpu_s)}, {"idle", hours(result.idle_gpu_s)},
                     {"stranded", hours(result.stranded_gpu_s)}, {"down", hours(result.down_gpu_s)},
                     {"drained", hours(result.drained_gpu_s)}, {"spare", hours(result.spare_gpu_s)},
                     {"useful", hours(useful_gpu_s)}, {"lost_work", hours(lost_gpu_s)},
                     {"overhead", hours(overhead_gpu_s)}}},
      {"mean_queue_length", result.makespan > cluster::Span::zero() ? result.queue_job_s / result.makespan.seconds() : 0.0},
      {"preemptions", preemptions},
      {"job_failures", job_failures},
      {"component_failures", result.component_failures},
      {"events", result.events},
      {"warnings", info.warnings},
      {"outputs", outputs},
  };
  if (!info.simulation.is_null()) summary["simulation"] = info.simulation;
  return summary;
}

}  // namespace loom::report
