#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/report/cluster_outputs.h"

namespace loom::report {

namespace {
std::string_view ending_name(cluster::RunSpan::Ending e) {
  switch (e) {
    case cluster::RunSpan::Ending::kDone: return "done";
    case cluster::RunSpan::Ending::kPreempted: return "preempted";
    case cluster::RunSpan::Ending::kFailed: return "failed";
    case cluster::RunSpan::Ending::kCut: return "running at the end";
  }
  return "?";
}

// Microseconds with nanosecond precision.
std::string micros(cluster::Span t) {
  const std::int64_t ns = t.nanoseconds();
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}
}  // namespace

WrittenFile write_cluster_timeline(const std::filesystem::path& dir, const cluster::Machines& machines,
                                   const std::vector<cluster::Job>& jobs, const cluster::JobModeResult& result,
                                   std::uint64_t max_events) {
  WrittenFile written;
  std::ofstream out = open_output(dir, "timeline.json", written.path);
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  const auto emit = [&](const std::string& event) {
    out << (first ? "" : ",\n") << event;
    first = false;
  };
  written.rows = std::min<std::uint64_t>(result.runs.size(), max_events);
  written.dropped = result.runs.size() - written.rows;
  std::set<std::uint32_t> hosts;
  for (std::size_t i = 0; i < written.rows; ++i) {
    const cluster::RunSpan& run = result.runs[i];
    hosts.insert(run.host);
    emit(fmt::format("{{\"name\":{},\"cat\":\"job\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{},\"tid\":{},"
                     "\"args\":{{\"gpus\":{},\"ended\":\"{}\"}}}}",
                     nlohmann::json(jobs[run.job].id).dump(), micros(run.start), micros(run.end - run.start),
                     machines.hosts[run.host].leaf, run.host, run.gpus, ending_name(run.ending)));
  }
  std::set<std::uint32_t> leaves;
  for (std::uint32_t h : hosts) {
    const cluster::Host& host = machines.hosts[h];
    leaves.insert(host.leaf);
    emit(fmt::format("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}",
                     host.leaf, h, nlohmann::json(fmt::format("{} ({} GPUs)", host.name, host.gpus)).dump()));
  }
  for (std::uint32_t l : leaves) {
    emit(fmt::format("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":{}}}}}", l,
                     nlohmann::json(machines.leaves[l]).dump()));
  }
  out << "\n]}\n";
  finish_output(out, written.path);
  return written;
}

}  // namespace loom::report
