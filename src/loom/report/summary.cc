#include "loom/report/summary.h"

#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "loom/core/build_info.h"
#include "loom/core/error.h"

namespace loom::report {

namespace {
nlohmann::json bandwidth_json(const Bandwidths& b) {
  return {{"algbw_GBps", b.algbw_gbytes_per_s}, {"busbw_GBps", b.busbw_gbytes_per_s}};
}
}  // namespace

nlohmann::json make_summary(const RunInfo& info, const workload::Workload& workload, const system::RunResult& result) {
  nlohmann::json entries = nlohmann::json::array();
  for (const EntryStats& s : entry_stats(workload, result)) {
    nlohmann::json e = {
        {"label", s.label},
        {"op", collective::to_string(s.op)},
        {"group", s.group},
        {"algorithm", collective::to_string(s.algorithm)},
        {"size_bytes", s.bytes},
        {"members", s.members},
        {"instances", s.instances},
        {"time_us", {{"mean", s.mean_time.microseconds()}, {"min", s.min_time.microseconds()},
                     {"max", s.max_time.microseconds()}}},
    };
    e.update(bandwidth_json(s.mean_bandwidth));
    entries.push_back(std::move(e));
  }
  nlohmann::json collectives = nlohmann::json::array();
  for (const system::CollectiveRecord& r : result.collectives) {
    nlohmann::json c = {
        {"label", workload.label(r.label)},
        {"op", collective::to_string(r.op)},
        {"communicator", workload.communicator(r.communicator).name},
        {"sequence", r.sequence},
        {"members", r.members},
        {"algorithm", collective::to_string(r.algorithm)},
        {"size_bytes", r.bytes},
        {"first_arrival_ps", r.first_arrival.picoseconds()},
        {"start_ps", r.start.picoseconds()},
        {"end_ps", r.end.picoseconds()},
        {"time_us", r.duration().microseconds()},
        {"transfers", r.transfers},
        {"bytes_moved", r.bytes_moved},
    };
    c.update(bandwidth_json(bandwidths(r)));
    collectives.push_back(std::move(c));
  }
  return {
      {"loom", {{"version", kVersion}, {"git_sha", kGitSha}}},
      {"seed", info.seed},
      {"backend", info.backend},
      {"config", info.effective_config},
      {"totals",
       {{"makespan_ps", result.makespan.picoseconds()},
        {"makespan_us", result.makespan.microseconds()},
        {"collectives", result.collectives.size()},
        {"transfers", result.transfers},
        {"bytes_moved", result.bytes_moved},
        {"events", result.events}}},
      {"entries", std::move(entries)},
      {"collectives", std::move(collectives)},
  };
}

std::filesystem::path write_summary(const std::filesystem::path& dir, const nlohmann::json& summary) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UserError(fmt::format("cannot create output directory '{}': {}", dir.string(), ec.message()));
  const std::filesystem::path path = dir / "summary.json";
  std::ofstream file(path);
  file << summary.dump(2) << '\n';
  if (!file) throw UserError(fmt::format("cannot write '{}'", path.string()));
  return path;
}

void print_table(std::ostream& out, const std::vector<EntryStats>& entries, const system::RunResult& result) {
  fmt::print(out, "{:<15} {:<10} {:>9} {:<9} {:>5} {:>5} {:>13} {:>11} {:>11}\n", "op", "group", "size",
             "algorithm", "ranks", "runs", "time (us)", "algbw GB/s", "busbw GB/s");
  for (const EntryStats& s : entries) {
    fmt::print(out, "{:<15} {:<10} {:>9} {:<9} {:>5} {:>5} {:>13.3f} {:>11.2f} {:>11.2f}\n",
               collective::to_string(s.op), s.group, format_size(s.bytes), collective::to_string(s.algorithm),
               s.members, s.instances, s.mean_time.microseconds(), s.mean_bandwidth.algbw_gbytes_per_s,
               s.mean_bandwidth.busbw_gbytes_per_s);
  }
  fmt::print(out, "makespan {} | {} collectives, {} transfers, {} moved, {} events\n", result.makespan,
             result.collectives.size(), result.transfers, format_size(result.bytes_moved), result.events);
}

}  // namespace loom::report
