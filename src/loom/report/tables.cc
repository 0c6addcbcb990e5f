#include "loom/report/tables.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "loom/report/collective_stats.h"

namespace loom::report {

namespace {

// Nanoseconds with picosecond precision ("1250.500").
std::string nanoseconds(Time t) {
  const std::int64_t ps = t.picoseconds();
  return fmt::format("{}.{:03}", ps / 1000, ps % 1000);
}

// Prints the header and up to max_rows rows produced by `row(i)` for i in [0, count).
template <class Row>
WrittenFile print_table(std::ostream& out, std::string_view header, std::uint64_t count, std::uint64_t max_rows,
                        Row row) {
  WrittenFile written;
  out << header << '\n';
  written.rows = std::min(count, max_rows);
  written.dropped = count - written.rows;
  for (std::uint64_t i = 0; i < written.rows; ++i) out << row(i) << '\n';
  return written;
}

// flows.csv's `transfer`: "c<communicator>.<sequence>.<channel>.<step>" for a collective's
// transfer, "p<send node>" for a point-to-point one (README, Outputs).
std::string transfer_identity(const system::TransferRecord& t) {
  if (t.communicator == system::kPointToPoint) return fmt::format("p{}", t.sequence);
  return fmt::format("c{}.{}.{}.{}", t.communicator, t.sequence, t.channel, t.step);
}

}  // namespace

WrittenFile write_collectives_csv(const std::filesystem::path& dir, const workload::Workload& workload,
                                  const system::RunResult& result, std::uint64_t max_rows) {
  return write_printed(dir, "collectives.csv",
                    [&](std::ostream& out) { return print_collectives_csv(out, workload, result, max_rows); });
}

WrittenFile write_flows_csv(const std::filesystem::path& dir, const system::RunResult& result, std::uint64_t max_rows) {
  return write_printed(dir, "flows.csv", [&](std::ostream& out) { return print_flows_csv(out, result, max_rows); });
}

WrittenFile write_ranks_csv(const std::filesystem::path& dir, const system::Metrics& metrics, std::uint64_t max_rows) {
  return write_printed(dir, "ranks.csv", [&](std::ostream& out) { return print_ranks_csv(out, metrics, max_rows); });
}

WrittenFile print_collectives_csv(std::ostream& out, const workload::Workload& workload,
                                  const system::RunResult& result, std::uint64_t max_rows) {
  return print_table(
      out,
      "label,op,group,communicator,members,size_bytes,algorithm,protocol,channels,chunks,first_arrival_us,start_us,"
      "end_us,time_us,algbw_GBps,busbw_GBps,transfers,bytes_moved",
      result.collectives.size(), max_rows, [&](std::uint64_t i) {
        const system::CollectiveRecord& r = result.collectives[i];
        const workload::Communicator& c = workload.communicator(r.communicator);
        const Bandwidths b = bandwidths(r);
        return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{},{}",
                           csv_quote(workload.label(r.label)), collective::to_string(r.op), c.group, c.name, r.members,
                           r.bytes, algorithm_name(r, result), collective::to_string(r.protocol), r.channels,
                           r.chunks, microseconds(r.first_arrival), microseconds(r.start),
                           microseconds(r.end), microseconds(r.duration()), b.algbw_gbytes_per_s,
                           b.busbw_gbytes_per_s, r.transfers, r.bytes_moved);
      });
}

WrittenFile print_flows_csv(std::ostream& out, const system::RunResult& result, std::uint64_t max_rows) {
  WrittenFile written = print_table(out,
                     "src_rank,dst_rank,src_node,dst_node,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,transfer",
                     result.transfer_log.size(), max_rows, [&](std::uint64_t i) {
                       const system::TransferRecord& t = result.transfer_log[i];
                       const Time fct = t.end - t.start;
                       const double slowdown = t.ideal > Time::zero()
                                                   ? static_cast<double>(fct.picoseconds()) /
                                                         static_cast<double>(t.ideal.picoseconds())
                                                   : 1.0;
                       // A switch end (in-switch reductions) has no rank: the cell stays empty.
                       const auto rank = [](std::uint32_t r) {
                         return r == topology::kNone ? std::string() : std::to_string(r);
                       };
                       return fmt::format("{},{},{},{},{},{},{},{},{:.6f},{}", rank(t.src_rank), rank(t.dst_rank), t.src,
                                          t.dst, t.bytes, nanoseconds(t.start), nanoseconds(fct), nanoseconds(t.ideal),
                                          slowdown, transfer_identity(t));
                     });
  written.dropped += result.transfers_not_logged;
  return written;
}

WrittenFile print_ranks_csv(std::ostream& out, const system::Metrics& metrics, std::uint64_t max_rows) {
  std::string header = "rank,finish_us,compute_us,comm_us,exposed_comm_us,sync_wait_us,idle_us";
  for (std::size_t k = 0; k < system::kCommKinds; ++k) {
    header += fmt::format(",{0}_comm_us,{0}_exposed_us", system::comm_kind_name(k));
  }
  return print_table(out, header, metrics.ranks.size(), max_rows, [&](std::uint64_t r) {
    const system::RankMetrics& m = metrics.ranks[r];
    std::string line = fmt::format("{},{},{},{},{},{},{}", r, microseconds(m.finish), microseconds(m.compute),
                                   microseconds(m.comm_total), microseconds(m.exposed_total),
                                   microseconds(m.sync_wait), microseconds(m.idle));
    for (std::size_t k = 0; k < system::kCommKinds; ++k) {
      line += fmt::format(",{},{}", microseconds(m.comm[k]), microseconds(m.exposed[k]));
    }
    return line;
  });
}

}  // namespace loom::report
