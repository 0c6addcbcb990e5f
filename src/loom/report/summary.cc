#include "loom/report/summary.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "loom/core/build_info.h"
#include "loom/core/error.h"

namespace loom::report {

namespace {
nlohmann::json bandwidth_json(const Bandwidths& b) {
  return {{"algbw_GBps", b.algbw_gbytes_per_s}, {"busbw_GBps", b.busbw_gbytes_per_s}};
}

// min / mean / max over ranks of one per-rank time, in microseconds.
template <class Get>
nlohmann::json spread(const std::vector<system::RankMetrics>& ranks, Get get) {
  if (ranks.empty()) return nullptr;
  Time lo = get(ranks.front()), hi = lo;
  __extension__ __int128 total = 0;
  for (const system::RankMetrics& r : ranks) {
    const Time t = get(r);
    lo = std::min(lo, t);
    hi = std::max(hi, t);
    total += t.picoseconds();
  }
  const double mean = static_cast<double>(total / static_cast<std::int64_t>(ranks.size())) * 1e-6;
  return {{"min", lo.microseconds()}, {"mean", mean}, {"max", hi.microseconds()}};
}

nlohmann::json metrics_json(const workload::Workload& workload, const system::Metrics& m) {
  nlohmann::json iterations = nlohmann::json::array();
  for (Time t : m.iteration_times) iterations.push_back(t.microseconds());
  nlohmann::json by_kind = nlohmann::json::object();
  nlohmann::json critical_comm = nlohmann::json::object();
  for (std::size_t k = 0; k < system::kCommKinds; ++k) {
    const bool used = std::any_of(m.ranks.begin(), m.ranks.end(), [&](const auto& r) { return r.comm[k] > Time::zero(); });
    if (used) {
      by_kind[std::string(system::comm_kind_name(k))] = {
          {"comm_us", spread(m.ranks, [&](const auto& r) { return r.comm[k]; })},
          {"exposed_us", spread(m.ranks, [&](const auto& r) { return r.exposed[k]; })}};
    }
    if (m.critical_comm[k] > Time::zero()) {
      critical_comm[std::string(system::comm_kind_name(k))] = m.critical_comm[k].microseconds();
    }
  }
  nlohmann::json path = nlohmann::json::array();
  constexpr std::size_t kShownSegments = 32;
  for (std::size_t i = 0; i < std::min(m.critical_path.size(), kShownSegments); ++i) {
    const system::CriticalSegment& seg = m.critical_path[i];
    const workload::Node& node = workload.node(seg.node);
    path.push_back({{"node", seg.node}, {"rank", node.rank}, {"kind", workload::to_string(node.kind)},
                    {"label", workload.label(node.label)}, {"start_us", seg.start.microseconds()},
                    {"end_us", seg.end.microseconds()}});
  }
  Time length;
  if (!m.critical_path.empty()) length = m.critical_path.back().end - m.critical_path.front().start;
  return {
      {"iteration_us", std::move(iterations)},
      {"ranks",
       {{"compute_us", spread(m.ranks, [](const auto& r) { return r.compute; })},
        {"comm_us", spread(m.ranks, [](const auto& r) { return r.comm_total; })},
        {"exposed_comm_us", spread(m.ranks, [](const auto& r) { return r.exposed_total; })},
        {"sync_wait_us", spread(m.ranks, [](const auto& r) { return r.sync_wait; })},
        {"idle_us", spread(m.ranks, [](const auto& r) { return r.idle; })},
        {"by_comm_kind", std::move(by_kind)}}},
      {"critical_path",
       {{"length_us", length.microseconds()},
        {"compute_us", m.critical_compute.microseconds()},
        {"comm_us", std::move(critical_comm)},
        {"segments", m.critical_path.size()},
        {"first_segments", std::move(path)}}},
  };
}

}  // namespace

nlohmann::json make_summary(const RunInfo& info, const workload::Workload& workload, const system::RunResult& result,
                            const system::Metrics& metrics, const std::vector<WrittenFile>& files) {
  nlohmann::json entries = nlohmann::json::array();
  for (const EntryStats& s : entry_stats(workload, result)) {
    nlohmann::json e = {
        {"label", s.label},
        {"op", collective::to_string(s.op)},
        {"group", s.group},
        {"algorithm", s.algorithm_name},
        {"protocol", collective::to_string(s.protocol)},
        {"channels", s.channels},
        {"chunks", s.chunks},
        {"size_bytes", s.bytes},
        {"members", s.members},
        {"instances", s.instances},
        {"time_us", {{"mean", s.mean_time.microseconds()}, {"min", s.min_time.microseconds()},
                     {"max", s.max_time.microseconds()}}},
    };
    e.update(bandwidth_json(s.mean_bandwidth));
    entries.push_back(std::move(e));
  }
  nlohmann::json outputs = nlohmann::json::array();
  for (const WrittenFile& f : files) {
    outputs.push_back({{"file", f.path.filename().string()}, {"rows", f.rows}, {"rows_left_out", f.dropped}});
  }
  nlohmann::json summary = {
      {"loom", {{"version", kVersion}, {"git_sha", kGitSha}}},
      {"seed", info.seed},
      {"backend", info.backend},
      {"complete", result.complete},
      {"config", info.effective_config},
      {"totals",
       {{"makespan_ps", result.makespan.picoseconds()},
        {"makespan_us", result.makespan.microseconds()},
        {"nodes", workload.node_count()},
        {"collectives", result.collective_tally.operations()},
        {"transfers", result.transfers},
        {"bytes_moved", result.bytes_moved},
        {"events", result.events}}},
      {"entries", std::move(entries)},
      {"metrics", metrics_json(workload, metrics)},
      {"network", info.network},
      {"memory", info.memory},
      {"symmetry", info.symmetry},
      {"warnings", info.warnings},
      {"outputs", std::move(outputs)},
  };
  if (!result.complete) summary["stop_reason"] = result.stop_reason;
  if (workload.point_to_point() == workload::PointToPoint::kEager) {
    summary["totals"]["point_to_point"] = "eager";
    summary["totals"]["sends_held"] = result.sends_held;  // data that arrived before its receive
  }
  return summary;
}

std::filesystem::path write_summary(const std::filesystem::path& dir, const nlohmann::json& summary) {
  std::filesystem::path path;
  std::ofstream file = open_output(dir, "summary.json", path);
  file << summary.dump(2) << '\n';
  finish_output(file, path);
  return path;
}

void print_table(std::ostream& out, const std::vector<EntryStats>& entries, const system::RunResult& result) {
  fmt::print(out, "{:<15} {:<10} {:>9} {:<16} {:<6} {:>4} {:>6} {:>5} {:>5} {:>13} {:>11} {:>11}\n", "op", "group",
             "size", "algorithm", "proto", "chan", "chunks", "ranks", "runs", "time (us)", "algbw GB/s", "busbw GB/s");
  for (const EntryStats& s : entries) {
    fmt::print(out, "{:<15} {:<10} {:>9} {:<16} {:<6} {:>4} {:>6} {:>5} {:>5} {:>13.3f} {:>11.2f} {:>11.2f}\n",
               collective::to_string(s.op), s.group, format_size(s.bytes), s.algorithm_name,
               collective::to_string(s.protocol), s.channels, s.chunks, s.members, s.instances,
               s.mean_time.microseconds(), s.mean_bandwidth.algbw_gbytes_per_s, s.mean_bandwidth.busbw_gbytes_per_s);
  }
  fmt::print(out, "makespan {} | {} collectives, {} transfers, {} moved, {} events\n", result.makespan,
             result.collective_tally.operations(), result.transfers, format_size(result.bytes_moved), result.events);
}

}  // namespace loom::report
