#include "hpcc_command.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <fstream>
#include <ostream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.h"
#include "loom/core/units.h"
#include "loom/hpcc/hpcc_run.h"
#include "loom/network/packet/monitor_csv.h"
#include "loom/network/packet/parallel/lp_partition.h"
#include "loom/network/packet/parallel/mpi_rank_exchange.h"
#include "mpi_world.h"

namespace loom::app {

namespace {

namespace fs = std::filesystem;
using hpcc::FctComparison;
using hpcc::HpccConfig;
using hpcc::HpccFlow;

// Where a file the config names is looked for, in order: relative to the config's folder, by
// its base name in that folder (ns-3 configs name files relative to ns-3's working directory,
// e.g. "mix/topology.txt" for a config in mix/), then relative to the current directory.
std::array<fs::path, 3> candidates(const fs::path& config_dir, const std::string& name) {
  const fs::path given(name);
  return {config_dir / given, config_dir / given.filename(), given};
}

std::string locate(const fs::path& config_dir, const std::string& name, std::string_view key) {
  for (const fs::path& candidate : candidates(config_dir, name)) {
    if (fs::is_regular_file(candidate)) return candidate.string();
  }
  throw UserError(fmt::format("{} '{}': expected a file next to the config ({}) or at that path",
                              key, name, (config_dir / fs::path(name).filename()).string()));
}

// An output the config names: in `out_dir` by its base name when --out is given; else at the
// name relative to the config's folder when that folder exists, or by its base name next to the
// config. From ns-3's working directory with the config in mix/, that is where ns-3 writes it.
fs::path output_path(const fs::path& config_dir, const std::string& name,
                     const std::optional<std::string>& out_dir) {
  const fs::path given(name);
  if (out_dir) return fs::path(*out_dir) / given.filename();
  const fs::path as_named = config_dir / given;
  if (fs::is_directory(as_named.parent_path().empty() ? "." : as_named.parent_path())) return as_named;
  return config_dir / given.filename();
}

void write_file(const fs::path& path, const auto& write) {
  std::ofstream out(path);
  if (!out) throw UserError(fmt::format("cannot write '{}': expected a writable path", path.string()));
  write(out);
}

// Two lines on what parallel execution over `lps` would do with the run.
void print_window_profile(const network::packet::parallel::LpPartition& lps,
                          const network::packet::parallel::WindowProfile& p, std::ostream& out) {
  const double events = static_cast<double>(std::max<std::uint64_t>(p.events, 1));
  out << fmt::format("  parallel profile ({}): {} LPs, lookahead {}; {} windows, {:.0f} events each; {:.1f}% of "
                     "events hand a packet or PFC frame to another LP\n",
                     lps.rule, p.lps, p.lookahead == Time::max() ? std::string("none") : to_string(p.lookahead),
                     p.windows, events / static_cast<double>(std::max<std::uint64_t>(p.windows, 1)),
                     100 * static_cast<double>(p.cross_lp) / events);
  const auto& two = p.splits[1].balanced;
  const auto& sixteen = p.splits[2].balanced;
  out << fmt::format("  span bound {:.2f}x on 2 threads (imbalance {:.3f}), {:.2f}x on 16 (imbalance {:.3f}); "
                     "network/packet/parallel/README.md\n",
                     events / static_cast<double>(two.span), two.imbalance, events / static_cast<double>(sixteen.span),
                     sixteen.imbalance);
}

// One line on a windowed run: its LPs, windows, events handed between LPs and the busiest LP's share.
void print_windows(const network::packet::parallel::LpPartition& lps, const network::packet::parallel::WindowStats& w,
                   std::ostream& out) {
  std::uint64_t total = 0, busiest = 0;
  for (const std::uint64_t e : w.lp_events) {
    total += e;
    busiest = std::max(busiest, e);
  }
  const double events = static_cast<double>(std::max<std::uint64_t>(total, 1));
  out << fmt::format("  windowed ({}): {} LPs, lookahead {}; {} windows, {} driver steps; {:.1f}% of fabric events "
                     "handed to another LP; busiest LP {:.1f}% of them\n",
                     lps.rule, lps.lp_count, to_string(lps.lookahead), w.windows, w.global_steps,
                     100 * static_cast<double>(w.handed_over) / events, 100 * static_cast<double>(busiest) / events);
  if (w.threads > 1) {
    out << fmt::format("  threads: {}, window imbalance {:.3f} (busiest thread's events per window, summed, over the "
                       "mean), {} rebalances\n", w.threads, w.window_imbalance, w.rebalances);
  }
}

// One line on the exchanges of a run over MPI ranks.
void print_ranks(const network::packet::parallel::RankStats& r, std::ostream& out) {
  out << fmt::format("  MPI ranks: {}; {} exchange rounds, {} events and {:.1f} MB sent between ranks; {:.3f}-{:.3f} s "
                     "of wall time in exchanges per rank; {} collectives\n", r.ranks, r.rounds, r.events_sent,
                     static_cast<double>(r.bytes_sent) * 1e-6, r.exchange_seconds_min, r.exchange_seconds_max,
                     r.collectives);
}

void warn(const std::string& message) { fmt::print(stderr, "loom: warning: {}\n", message); }

void warn_ignored_keys(const std::string& config_file, const std::vector<std::string>& keys) {
  std::vector<std::string> unique;
  for (const std::string& key : keys) {
    if (std::find(unique.begin(), unique.end(), key) == unique.end()) unique.push_back(key);
  }
  if (!unique.empty()) {
    warn(fmt::format("{}: keys without effect in Loom: {}", config_file, fmt::join(unique, ", ")));
  }
}

// ns-3 never starts a flow after the stop time; say so rather than drop it unseen.
void warn_late_flows(const std::string& flow_file, const std::vector<HpccFlow>& flows, Time stop) {
  constexpr std::size_t kLinesShown = 5;
  std::vector<int> lines;
  for (const HpccFlow& f : flows) {
    if (f.start > stop) lines.push_back(f.line);
  }
  if (lines.size() == 1) {
    warn(fmt::format("{}:{}: the flow starts after SIMULATOR_STOP_TIME ({}) and does not run", flow_file,
                     lines[0], stop));
  } else if (!lines.empty()) {
    const std::vector<int> shown(lines.begin(), lines.begin() + std::min(lines.size(), kLinesShown));
    warn(fmt::format("{}: {} flows start after SIMULATOR_STOP_TIME ({}) and do not run (lines {}{})",
                     flow_file, lines.size(), stop, fmt::join(shown, ", "),
                     lines.size() > kLinesShown ? ", ..." : ""));
  }
}

// The command on this rank of `world`; `running` turns true once the setup (reading and checking
// the inputs, alike on every rank) is done.
int run_hpcc_command(const HpccArguments& args, std::ostream& out, MpiWorld& world, bool& running) {
  if (world.joined() && !args.windowed && world.size() > 1) {
    throw UserError(fmt::format("started as one of {} MPI ranks: expected --windowed (with --lp-delay-threshold), "
                                "whose LPs the ranks share; without it run one process", world.size()));
  }
  if (world.joined() && args.windowed && args.threads != 1) {
    throw UserError(fmt::format("--threads {} under mpirun: each MPI rank runs its LPs on one thread; expected "
                                "--threads 1 (or one process with threads)", args.threads));
  }
  const bool lead = world.rank() == 0;
  HpccConfig config = hpcc::read_hpcc_config(args.config);
  network::packet::MonitorOptions& monitor = config.params.monitor;
  network::packet::enable_monitors(args.monitors, monitor);
  monitor.interval = parse_time(args.monitor_interval);
  monitor.max_rows = args.monitor_rows;
  if (monitor.interval <= Time::zero() || monitor.max_rows == 0) {
    throw UserError(fmt::format("--monitor-interval {} --monitor-rows {}: expected a positive time and at "
                                "least 1 row", args.monitor_interval, args.monitor_rows));
  }
  if (lead) warn_ignored_keys(args.config, config.ignored_keys);
  const fs::path dir = fs::path(args.config).parent_path();
  const std::string topology_file = locate(dir, config.topology_file, "TOPOLOGY_FILE");
  const std::string flow_file = locate(dir, config.flow_file, "FLOW_FILE");
  const topology::Topology topology = hpcc::parse_hpcc_topology(
      hpcc::read_text_file(topology_file, "topology file"), topology_file);
  const auto flows = hpcc::parse_hpcc_flows(
      hpcc::read_text_file(flow_file, "flow file"), flow_file, topology);
  if (lead) warn_late_flows(flow_file, flows, config.stop_time);

  const fs::path fct_path = output_path(dir, config.fct_output_file, args.out_dir);
  const fs::path pfc_path = output_path(dir, config.pfc_output_file, args.out_dir);
  const fs::path monitor_dir = args.out_dir ? fs::path(*args.out_dir) : fct_path.parent_path();
  if (args.out_dir && lead) fs::create_directories(*args.out_dir);
  std::optional<network::packet::parallel::LpPartition> lps;
  if (args.windowed && !args.lp_delay_threshold) {
    throw UserError("--windowed: expected --lp-delay-threshold, the delay below which cables join nodes into one LP");
  }
  if (args.lp_racks && !args.lp_delay_threshold) {
    throw UserError("--lp-racks: expected --lp-delay-threshold, whose LPs it joins into racks");
  }
  if (args.lp_delay_threshold) {
    lps = network::packet::parallel::partition_for(topology, parse_time(*args.lp_delay_threshold), args.lp_racks);
  }
  if (args.threads != 1 && !args.windowed) {
    throw UserError(fmt::format("--threads {}: expected --windowed, whose windows the threads run", args.threads));
  }
  if (args.windowed) {
    config.params.lp_delay_threshold = parse_time(*args.lp_delay_threshold);
    config.params.lp_racks = args.lp_racks;
    config.params.threads = args.threads;
    network::packet::check_packet_params(config.params);  // threads
  }
  std::unique_ptr<network::packet::parallel::RankExchange> ranks;
  if (world.joined() && args.windowed) {
    hpcc::check_rank_run(config, topology, static_cast<std::uint32_t>(world.size()));
    ranks = network::packet::parallel::make_mpi_rank_exchange();
  }
  running = true;
  const hpcc::HpccRunResult result =
      hpcc::run_hpcc(config, topology, flows, monitor_dir, lps && !args.windowed ? &*lps : nullptr, ranks.get());
  ranks.reset();
  world.leave();
  if (!lead) return 0;
  const double wall = result.simulate_seconds;

  write_file(fct_path, [&](std::ostream& o) { hpcc::write_fct(o, result.fct); });
  write_file(pfc_path, [&](std::ostream& o) { hpcc::write_pfc(o, result.pfc); });

  out << fmt::format("loom hpcc: {} flows ({} finished) on {} nodes, CC_MODE {}, {}\n",
                     flows.size(), result.fct.size(), topology.node_count(), config.cc_mode,
                     config.global_t ? fmt::format("global T {}", result.base_rtt) : "per-pair T");
  out << fmt::format("  {} events, {} data-packet hops in {:.3f} s of event loop ({:.2f} M events/s, {:.2f} M hops/s)\n",
                     result.events, result.counters.data_packet_hops, wall,
                     static_cast<double>(result.events) / wall * 1e-6,
                     static_cast<double>(result.counters.data_packet_hops) / wall * 1e-6);
  out << fmt::format("  PFC: {} pause/resume events; drops {}; ECN marks {}\n", result.pfc.size(),
                     result.counters.drops, result.counters.ecn_marks);
  if (result.window_profile) print_window_profile(*lps, *result.window_profile, out);
  if (result.windows) print_windows(*lps, *result.windows, out);
  if (result.rank_stats) print_ranks(*result.rank_stats, out);
  out << fmt::format("  wrote {} and {}\n", fct_path.string(), pfc_path.string());
  for (const network::OutputFile& file : result.monitor_files) out << fmt::format("  wrote {}\n", file.path.string());
  if (result.unfinished != 0) {
    out << fmt::format("  {} flows had not finished at SIMULATOR_STOP_TIME\n", result.unfinished);
  }
  if (args.reference) {
    const auto reference = hpcc::parse_fct(
        hpcc::read_text_file(*args.reference, "reference FCT file"), *args.reference);
    const FctComparison c = hpcc::compare_fct(result.fct, reference);
    out << fmt::format("  vs {}: {} flows matched, {} unmatched\n", *args.reference, c.matched, c.unmatched);
    out << fmt::format("  per-flow |FCT error|: mean {:.2f}%, max {:.2f}%\n", 100 * c.mean_abs_fct_error,
                       100 * c.max_abs_fct_error);
    out << fmt::format("  slowdown mean {:.3f} (ns-3 {:.3f}), median {:.3f} ({:.3f}), p99 {:.3f} ({:.3f})\n",
                       c.mean_slowdown, c.reference_mean_slowdown, c.median_slowdown,
                       c.reference_median_slowdown, c.p99_slowdown, c.reference_p99_slowdown);
  }
  return 0;
}

}  // namespace

int hpcc_command(const HpccArguments& args, std::ostream& out) {
  // Under mpirun, one windowed run split over the ranks (rank 0 writes and prints).
  MpiWorld world;
  return run_on_ranks(world, [&](bool& running) { return run_hpcc_command(args, out, world, running); });
}

CLI::App* add_hpcc_command(CLI::App& app, HpccArguments& args) {
  CLI::App* cmd = app.add_subcommand(
      "hpcc", "Run an HPCC/ns-3 experiment (config.txt, topology, flows) on the packet fabric.");
  cmd->add_option("config", args.config, "HPCC config.txt")->required();
  cmd->add_option("--out", args.out_dir,
                  "Directory for the outputs and monitors; takes precedence over the config's output paths");
  cmd->add_option("--reference", args.reference, "An ns-3 fct.txt to compare FCTs with");
  cmd->add_option("--monitor", args.monitors,
                  "Monitors to write as CSV with the outputs: queues,throughput,qp_rates,cnps,pfc,drops or all");
  cmd->add_option("--monitor-interval", args.monitor_interval, "Monitor sampling interval (default 100us)");
  cmd->add_option("--monitor-rows", args.monitor_rows, "Rows kept per monitor file (default 1000000)");
  cmd->add_option("--lp-delay-threshold", args.lp_delay_threshold,
                  "Profile the run for parallel execution over LPs of nodes joined by cables shorter than this");
  cmd->add_flag("--lp-racks", args.lp_racks,
                "Join each LP cabled to one other LP only into it (a host into its ToR): racks as LPs");
  cmd->add_flag("--windowed", args.windowed,
               "Run window by window over the LPs of --lp-delay-threshold (the outputs stay the same)");
  cmd->add_option("--threads", args.threads, "Threads of a --windowed run (1; the outputs stay the same)");
  cmd->footer(
      "Outputs: without --out, the FCT and PFC files go where the config's FCT_OUTPUT_FILE and\n"
      "PFC_OUTPUT_FILE say: relative to the config's folder if that folder exists, else by base name\n"
      "next to the config (mix/fct.txt of mix/config.txt lands in mix/, as ns-3 writes it). With\n"
      "--out DIR they go into DIR by their base names, and the monitors with them.");
  return cmd;
}

}  // namespace loom::app
