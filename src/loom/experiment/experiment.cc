#include "loom/experiment/experiment.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/simulator.h"
#include "loom/experiment/closed_form_groups.h"
#include "loom/experiment/in_memory.h"
#include "loom/experiment/sections.h"
#include "loom/experiment/link_monitor.h"
#include "loom/experiment/slow_nics.h"
#include "loom/experiment/symmetry_choice.h"
#include "loom/experiment/system_section.h"
#include "loom/experiment/workload_sections.h"
#include "loom/network/models/backend_factory.h"
#include "loom/network/pxn_relay.h"
#include "loom/report/html/report.h"
#include "loom/report/summary.h"
#include "loom/report/tables.h"
#include "loom/report/timeline.h"
#include "loom/topology/routing.h"
#include "loom/workload/critical_path.h"

namespace loom::experiment {

namespace {
// "solver.solves" -> "solver/solves" (a JSON pointer below the summary's "network").
std::string replace_dots(std::string key) {
  std::replace(key.begin(), key.end(), '.', '/');
  return key;
}
// A sampler stops at its row cap (link_monitor.h, network/packet/monitor.h): warns up front
// when the cap covers less simulated time than the run's compute alone (its critical path at
// infinite bandwidth, a lower bound of the run), so the sampled file is bound to stop early.
void warn_of_short_sampling(Experiment& e) {
  const network::packet::MonitorOptions& m = e.network.params.packet.monitor;
  const bool links = e.network.params.mode == network::NetworkMode::kFlow && e.output.links;
  // queues and throughput write a row per watched port (every link) and sample.
  const bool ports = e.network.params.mode == network::NetworkMode::kPacket && (m.queues || m.throughput);
  if (!links && !ports) return;
  const Time run = workload::critical_path_length(e.workload);
  const auto warn = [&](std::string_view cap, double covered_ps, std::string_view what) {
    if (covered_ps >= static_cast<double>(run.picoseconds())) return;
    e.warnings.push_back(fmt::format("{} cover at most {} of simulated time, but the run lasts at least {} (its compute "
                                     "alone): {} will stop sampling early; a longer interval covers more",
                                     cap, Time::ps(std::llround(covered_ps)), run, what));
  };
  if (links) {
    warn("output.link_interval x output.max_rows",
         static_cast<double>(e.output.link_interval.picoseconds()) * static_cast<double>(e.output.max_rows),
         "links.csv");
  }
  if (ports) {
    const std::uint32_t watched = e.topology.link_count();
    warn(fmt::format("network.packet.monitor.interval x max_rows / {} watched ports", watched),
         static_cast<double>(m.interval.picoseconds()) * static_cast<double>(m.max_rows) / watched,
         "packet_queues.csv and packet_throughput.csv");
  }
}

// Whole-run slowdowns go into the topology, windowed ones become rate changes over the
// unmodified topology (slow_nics.h).
void apply_slow_nics(std::span<const SlowNic> slow, Experiment& e) {
  if (slow.empty()) return;
  e.link_rate_changes = nic_rate_changes(e.topology, slow);
  std::vector<workload::NicSlowdown> whole_run;
  for (const SlowNic& s : slow) {
    if (!s.window) whole_run.push_back(s.slowdown);
    if (s.window && !e.rate_changes_from.known()) e.rate_changes_from = s.where;
  }
  if (!whole_run.empty()) e.topology = with_slow_nics(e.topology, whole_run);
}

}  // namespace

Experiment load(config::Document& document, const MemoryBudget& budget) {
  config::Reader root = document.root();
  Experiment e;
  e.seed = root.optional<std::uint64_t>("seed", e.seed);
  e.topology =
      read_topology(root.child("topology"), std::filesystem::path(document.source_name()).parent_path(), budget);
  const std::filesystem::path base_dir = std::filesystem::path(document.source_name()).parent_path();
  config::Reader system = root.child_or_empty("system");
  const workload::NodeStorage storage = system.optional<bool>("compact", true) ? workload::NodeStorage::kSharedPrograms
                                                                               : workload::NodeStorage::kPerNode;
  LoadedWorkloadSection loaded =
      read_workload_section(root.child("workload"), e.topology.gpu_count(), base_dir, e.seed, budget, storage);
  apply_slow_nics(loaded.nic_slowdowns, e);
  e.workload = std::move(loaded.workload);
  e.warnings = std::move(loaded.warnings);
  e.memory = loaded.memory;
  e.runtime = read_collective(root.child_or_empty("collective"), base_dir);
  e.runtime.flow_hash_seed = e.seed;
  read_system(system, loaded.comm_streams_needed, e.runtime);
  e.symmetry = system.optional<bool>("symmetry", e.symmetry);
  system.finish();
  e.network = read_network(root.child_or_empty("network"), e.topology, e.seed, base_dir);
  e.warnings.insert(e.warnings.end(), e.network.warnings.begin(), e.network.warnings.end());
  check_stream_classes(system, e.runtime, e.network);
  {
    config::Reader output = root.child_or_empty("output");
    OutputOptions& o = e.output;
    o.dir = output.optional<std::string>("dir", o.dir.string());
    o.collectives = output.optional<bool>("collectives", o.collectives);
    o.flows = output.optional<bool>("flows", o.flows);
    o.ranks = output.optional<bool>("ranks", o.ranks);
    o.timeline = output.optional<bool>("timeline", o.timeline);
    o.links = output.optional<bool>("links", o.links);
    o.link_interval = output.optional<Time>("link_interval", o.link_interval);
    if (o.link_interval <= Time::zero()) output.fail("link_interval", "must be positive");
    const std::uint64_t hot = output.optional<std::uint64_t>("hot_links", o.hot_links);
    if (hot > 1000) output.fail("hot_links", fmt::format("must be at most 1000, got {}", hot));
    o.hot_links = static_cast<std::uint32_t>(hot);
    o.max_rows = output.optional<std::uint64_t>("max_rows", o.max_rows);
    o.report = read_output_report(output);
    output.finish();
    e.runtime.record_transfers = o.flows;
    e.runtime.transfer_log_limit = o.max_rows;  // flows.csv keeps no more
  }
  root.finish();
  warn_of_short_sampling(e);
  e.effective_config = document.effective();
  return e;
}

namespace {
// Collective settings that only some runs use, named when this run used them nowhere.
void warn_of_unused_collective_settings(const Experiment& e, const system::RunResult& result,
                                        std::vector<std::string>& warnings) {
  const auto& plans = e.runtime.custom_plans;
  for (std::uint32_t p = 0; p < plans.size(); ++p) {
    if (!result.collective_tally.ran_plan(p)) {
      const auto& program = *plans[p].program;
      warnings.push_back(fmt::format(
          "collective.plans: plan '{}' ({} on {} ranks) matched no collective of the workload (same operation and "
          "member count) and never ran",
          plans[p].name, program.plan().collective, program.ranks()));
    }
  }
  if (e.runtime.direct_window != 1 && !result.collective_tally.ran_direct()) {
    warnings.push_back(fmt::format("collective.direct_window: {} has no effect: no collective ran the direct algorithm",
                                   e.runtime.direct_window));
  }
}

// Replaces the previous run's files in the output folder with this run's tables, timeline and
// packet monitors (links.csv and the summary follow in run()).
void write_tables(const Experiment& e, network::Backend& backend, Outcome& outcome) {
  const OutputOptions& o = e.output;
  report::remove_previous_outputs(o.dir);
  if (o.collectives) outcome.files.push_back(report::write_collectives_csv(o.dir, e.workload, outcome.result, o.max_rows));
  if (o.flows) outcome.files.push_back(report::write_flows_csv(o.dir, outcome.result, o.max_rows));
  if (o.ranks) outcome.files.push_back(report::write_ranks_csv(o.dir, outcome.metrics, o.max_rows));
  if (o.timeline) {
    outcome.files.push_back(report::write_timeline(o.dir, e.topology, e.workload, outcome.result, o.max_rows));
  }
  if (backend.capabilities().monitors) {
    for (const network::OutputFile& f : backend.write_monitors(o.dir)) outcome.files.push_back({f.path, f.rows, f.dropped});
  }
}
}  // namespace

namespace {
constexpr std::size_t kMaxRefinements = 3;

// One simulation of the experiment: the backend and what watched it, kept for the outputs.
struct Simulation {
  Simulator simulator;
  std::unique_ptr<network::Backend> backend;
  std::optional<LinkMonitor> links;
  std::optional<network::PxnRelay> pxn;
};

std::unique_ptr<Simulation> prepare(const Experiment& e, topology::Routing& routing,
                                    network::packet::parallel::RankExchange* ranks) {
  auto sim = std::make_unique<Simulation>();
  sim->backend = network::make_backend(sim->simulator, e.topology, routing, e.network.params, ranks);
  network::Backend& backend = *sim->backend;
  for (const LinkChange& change : e.network.link_changes) {
    backend.schedule_link_change(change.at, change.link, change.up, routing);
  }
  if (!e.link_rate_changes.empty() && !backend.capabilities().link_rate_changes) {
    throw UserError(e.rate_changes_from,
                    fmt::format("workload.variation.slow_nics: a time window (from, until) needs link rate changes, which "
                                "network.mode {} does not model; slow the NIC for the whole run (no from/until) instead",
                                backend.name()));
  }
  for (const LinkRateChange& change : e.link_rate_changes) backend.schedule_link_rate(change.at, change.link, change.rate);
  const OutputOptions& o = e.output;
  if (backend.capabilities().link_loads && o.links) {
    sim->links.emplace(sim->simulator, e.topology, backend, o.link_interval, o.max_rows);
  }
  if (e.network.pxn) sim->pxn.emplace(e.topology, backend);
  return sim;
}

system::RunResult simulate(const Experiment& e, Simulation& sim, const system::RunWatcher& watcher,
                           const system::RankSymmetry* symmetry, const std::vector<bool>& closed_form_skips) {
  network::Backend& carrier = sim.pxn ? static_cast<network::Backend&>(*sim.pxn) : *sim.backend;
  system::RuntimeOptions options = e.runtime;
  options.symmetry = symmetry;
  // Flow mode: run() repeats a run with conflicts; links sampled over time need every
  // transfer's bytes on them as they flow.
  options.flow_closed_form = options.closed_form && !sim.links;
  options.closed_form_skips = closed_form_skips;
  options.keep_stalled_run = true;  // what ran until the watchdog stopped it is written, as for Ctrl-C
  // The summary's entries come from the run's tally: a record per operation only for collectives.csv.
  options.keep_collective_records = e.output.collectives;
  system::Runtime runtime(sim.simulator, e.topology, e.workload, carrier, options);
  return runtime.run(watcher);
}
}  // namespace

Outcome run(const Experiment& e, const system::RunWatcher& watcher, RunMode mode,
            network::packet::parallel::RankExchange* ranks) {
  const bool write = mode == RunMode::kWriteFiles;
  if (write) report::check_output_dir(e.output.dir);
  topology::Routing routing(e.topology);
  SymmetryChoice symmetry = choose_symmetry(e);
  std::unique_ptr<Simulation> sim = prepare(e, routing, ranks);
  Outcome outcome;
  outcome.warnings = e.warnings;
  std::vector<bool> closed_form_skips;
  outcome.result = simulate(e, *sim, watcher, symmetry.classes.get(), closed_form_skips);
  take_refined_classes(symmetry, outcome.result);
  // Ranks found to differ from their representative on this fabric leave its class; flows that
  // met an operation timed in closed form (flow mode) take its communicator's group out of the
  // closed form. Either way the run is repeated; after kMaxRefinements, or with no class left
  // to share, every rank runs.
  const auto conflict = [&] { return !outcome.result.closed_form_conflicts.empty() && outcome.result.complete; };
  while (!outcome.result.symmetry_mismatch.empty() || conflict()) {
    if (conflict()) {
      closed_form_skips = skip_groups_of(e.workload, outcome.result.closed_form_conflicts, std::move(closed_form_skips));
    } else {
      symmetry.refinements.push_back(outcome.result.symmetry_mismatch);
      symmetry.classes = std::make_shared<const system::RankSymmetry>(symmetry.classes->refined(outcome.result.symmetry_split));
      if (symmetry.refinements.size() > kMaxRefinements || !symmetry.classes->reduces()) {
        symmetry.declined = fmt::format("tried and found the ranks not equivalent ({}); every rank was simulated",
                                        fmt::join(symmetry.refinements, "; "));
        symmetry.classes.reset();
      }
    }
    outcome.result = {};  // the previous attempt's state goes before the next one's is built
    sim.reset();
    sim = prepare(e, routing, ranks);
    outcome.result = simulate(e, *sim, watcher, symmetry.classes.get(), closed_form_skips);
    take_refined_classes(symmetry, outcome.result);
  }
  if (!outcome.result.closed_form_conflicts.empty()) {
    outcome.run_warnings.push_back("the run stopped early, and flows met operations timed in closed form "
                                   "(system.closed_form): their times may differ from a run with every transfer");
  }
  network::Backend* const backend = sim->backend.get();
  std::optional<LinkMonitor>& links = sim->links;
  std::optional<network::PxnRelay>& pxn = sim->pxn;
  backend->finish();
  const OutputOptions& o = e.output;
  warn_of_unused_collective_settings(e, outcome.result, outcome.run_warnings);
  outcome.metrics = system::compute_metrics(e.workload, outcome.result);
  outcome.entries = report::entry_stats(e.workload, outcome.result);
  if (write) write_tables(e, *backend, outcome);
  report::RunInfo info{e.seed, std::string(backend->name()), e.effective_config, nullptr, nullptr, e.warnings,
                       symmetry_json(symmetry, e.workload, outcome.result)};
  if (e.memory) info.memory = memory_json(*e.memory);
  if (links) {
    links->finish();
    if (write) outcome.files.push_back(report::write_links_csv(o.dir, e.topology, links->samples(), links->dropped()));
    std::vector<double> carried;
    backend->carried_bytes(carried);
    info.network["hot_links"] = report::hot_links(e.topology, carried, outcome.result.makespan, o.hot_links);
  }
  for (const network::Statistic& statistic : backend->statistics()) {
    // fmt, not "/" + string: GCC 12 at -O3 warns falsely (-Wrestrict) on that inlined insert.
    info.network[nlohmann::json::json_pointer(fmt::format("/{}", replace_dots(statistic.key)))] = statistic.value;
  }
  if (pxn) info.network["pxn_relayed_transfers"] = pxn->relayed();
  if (write && links && links->stopped_at() != Time::max()) {
    outcome.run_warnings.push_back(fmt::format(
        "links.csv: sampling stopped at {} after output.max_rows ({}) rows or intervals (a longer "
        "output.link_interval covers more of the run)", links->stopped_at(), o.max_rows));
  }
  if (backend->capabilities().monitors && backend->monitors_stopped_at() != Time::max()) {
    outcome.run_warnings.push_back(fmt::format(
        "the packet monitor reached network.packet.monitor.max_rows (rows or intervals) at {}: sampling stopped "
        "there (a longer network.packet.monitor.interval covers more of the run)",
        backend->monitors_stopped_at()));
  }
  for (const report::WrittenFile& f : outcome.files) {
    if (f.dropped > 0) {
      outcome.run_warnings.push_back(fmt::format("{}: {} rows kept, {} more left out by the row cap",
                                                 f.path.filename().string(), f.rows, f.dropped));
    }
  }
  info.warnings.insert(info.warnings.end(), outcome.run_warnings.begin(), outcome.run_warnings.end());
  outcome.summary = report::make_summary(info, e.workload, outcome.result, outcome.metrics, outcome.files);
  if (write) outcome.summary_path = report::write_summary(o.dir, outcome.summary);
  if (write && o.report) report::html::write_report(o.dir, o.dir / "report.html");
  return outcome;
}

}  // namespace loom::experiment
