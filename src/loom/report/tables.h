// CSV tables of a run, one row per thing, each with a header line:
//   collectives.csv  one row per collective instance: label, op, group, communicator, members,
//                    size_bytes, algorithm, first_arrival_us, start_us, end_us, time_us,
//                    algbw_GBps, busbw_GBps, transfers, bytes_moved
//   flows.csv        one row per transfer handed to the network (the columns of SimAI/HPCC
//                    fct.txt, by rank and GPU node instead of IP and port, plus slowdown):
//                    src_rank, dst_rank, src_node, dst_node, size_bytes, start_ns, fct_ns,
//                    ideal_fct_ns, slowdown
//   ranks.csv        one row per rank: the metrics of system/metrics.h in microseconds
// Times are exact decimal microseconds or nanoseconds. Tables stop after `max_rows` rows
// (the count left out is returned), so no output grows without bound.
#pragma once

#include <filesystem>
#include <ostream>

#include "loom/report/output_file.h"
#include "loom/system/metrics.h"
#include "loom/system/run_result.h"

namespace loom::report {

WrittenFile write_collectives_csv(const std::filesystem::path& dir, const workload::Workload& workload,
                                  const system::RunResult& result, std::uint64_t max_rows);
WrittenFile write_flows_csv(const std::filesystem::path& dir, const system::RunResult& result, std::uint64_t max_rows);
WrittenFile write_ranks_csv(const std::filesystem::path& dir, const system::Metrics& metrics, std::uint64_t max_rows);

// The same tables printed to `out` (the returned WrittenFile has no path), for callers that keep
// them in memory.
WrittenFile print_collectives_csv(std::ostream& out, const workload::Workload& workload,
                                  const system::RunResult& result, std::uint64_t max_rows);
WrittenFile print_flows_csv(std::ostream& out, const system::RunResult& result, std::uint64_t max_rows);
WrittenFile print_ranks_csv(std::ostream& out, const system::Metrics& metrics, std::uint64_t max_rows);

}  // namespace loom::report
