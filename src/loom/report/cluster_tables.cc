#include <fmt/format.h>
#include <fmt/ostream.h>

#include "loom/report/cluster_outputs.h"

namespace loom::report {

namespace {
using cluster::seconds_text;
}  // namespace

WrittenFile write_jobs_csv(const std::filesystem::path& dir, const std::vector<cluster::Job>& jobs,
                           const cluster::JobModeResult& result, std::uint64_t max_rows) {
  return write_printed(dir, "jobs.csv", [&](std::ostream& out) { return print_jobs_csv(out, jobs, result, max_rows); });
}

WrittenFile write_cluster_csv(const std::filesystem::path& dir, const cluster::JobModeResult& result,
                              std::uint64_t max_rows) {
  return write_printed(dir, "cluster.csv", [&](std::ostream& out) { return print_cluster_csv(out, result, max_rows); });
}

WrittenFile print_jobs_csv(std::ostream& out, const std::vector<cluster::Job>& jobs, const cluster::JobModeResult& result,
                           std::uint64_t max_rows) {
  WrittenFile written;
  out << "id,user,submit,start,end,wait,jct,gpus,hosts,leaves,preemptions,failures,lost_gpu_hours,"
         "overhead_gpu_hours,iteration_time,trace_wait\n";
  written.rows = std::min<std::uint64_t>(jobs.size(), max_rows);
  written.dropped = jobs.size() - written.rows;
  for (std::size_t i = 0; i < written.rows; ++i) {
    const cluster::Job& job = jobs[i];
    const cluster::JobRecord& r = result.jobs[i];
    const std::string start = r.first_start ? seconds_text(*r.first_start) : "";
    const std::string end = r.end ? seconds_text(*r.end) : "";
    const std::string jct = r.end ? seconds_text(*r.end - job.submit) : "";
    const std::string iteration = r.iteration_time > cluster::Span::zero() ? seconds_text(r.iteration_time) : "";
    fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{},{}\n", csv_quote(job.id), csv_quote(job.user),
               seconds_text(job.submit), start, end, seconds_text(r.wait), jct, job.gpu_fraction(), r.hosts, r.leaves,
               r.preemptions, r.failures, r.lost_work.hours() * job.gpu_fraction(),
               r.overhead.hours() * job.gpu_fraction(), iteration,
               job.trace_wait ? seconds_text(*job.trace_wait) : "");
  }
  return written;
}

WrittenFile print_cluster_csv(std::ostream& out, const cluster::JobModeResult& result, std::uint64_t max_rows) {
  WrittenFile written;
  out << "time,busy,idle,stranded,down,drained,spare,queued,running\n";
  written.rows = std::min<std::uint64_t>(result.samples.size(), max_rows);
  written.dropped = result.samples.size() - written.rows;
  for (std::size_t i = 0; i < written.rows; ++i) {
    const cluster::Sample& s = result.samples[i];
    // Busy and idle in GPUs, fractional where shares leave GPUs partly unused.
    fmt::print(out, "{},{},{},{},{},{},{},{},{}\n", seconds_text(s.at), s.gpus.busy - s.shared_free,
               s.gpus.idle + s.shared_free, s.gpus.stranded,
               s.gpus.down, s.gpus.drained, s.gpus.spare, s.queued, s.running);
  }
  return written;
}

}  // namespace loom::report
