#include "loom/experiment/sections.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "loom/collective/gpu_model.h"
#include "loom/collective/msccl/plan_reader.h"
#include "loom/collective/protocol.h"
#include "loom/experiment/located.h"
#include "loom/report/html/plotting_library.h"
#include "loom/topology/config_parameters.h"
#include "loom/topology/topology_io.h"
#include "loom/workload/microbenchmark.h"

namespace loom::experiment {

namespace {

// A whole number in [min, max] that fits 32 bits, with the default recorded when absent.
std::uint32_t read_count(config::Reader& s, std::string_view key, std::uint32_t fallback,
                         std::uint32_t min = 1, std::uint32_t max = std::numeric_limits<std::uint32_t>::max()) {
  const std::uint64_t value = s.optional<std::uint64_t>(key, fallback);
  if (value < min || value > max) {
    s.fail(key, fmt::format("must be between {} and {}, got {}", min, max, value));
  }
  return static_cast<std::uint32_t>(value);
}

std::uint32_t read_required_count(config::Reader& s, std::string_view key) {
  const std::uint64_t value = s.required<std::uint64_t>(key);
  if (value < 1 || value > std::numeric_limits<std::uint32_t>::max()) {
    s.fail(key, fmt::format("must be a positive whole number below 2^32, got {}", value));
  }
  return static_cast<std::uint32_t>(value);
}

// A whole number in [min, max], or `auto` (the default, recorded as such): nullopt.
std::optional<std::uint32_t> read_count_or_auto(config::Reader& s, std::string_view key, std::uint32_t min,
                                                std::uint32_t max) {
  const std::string text = s.optional<std::string>(key, "auto");
  if (text == "auto") return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || value < min || value > max) {
    s.fail(key, fmt::format("expected auto or a whole number from {} to {}, got '{}'", min, max, text));
  }
  return static_cast<std::uint32_t>(value);
}

}  // namespace

void check_fits(config::Reader& section, std::string_view key, const workload::WorkloadCounts& counts,
                const MemoryBudget& budget, workload::NodeStorage storage) {
  // The largest id is system::kNoNode, so ids name one node fewer than they count.
  constexpr std::uint64_t kMaxNodes = std::numeric_limits<workload::NodeId>::max();
  if (counts.nodes >= kMaxNodes) {
    section.fail(key, fmt::format("expands to {} workload nodes, more than Loom's 32-bit node ids can name "
                                  "(fewer than {})", counts.nodes, kMaxNodes));
  }
  const std::string what = fmt::format("{} workload nodes on {} ranks and their run state", counts.nodes, counts.ranks);
  if (const auto refusal = budget.refusal(system::Runtime::estimated_bytes(counts, storage), what)) section.fail(key, *refusal);
}

topology::Topology read_topology(config::Reader s, const std::filesystem::path& base_dir,
                                 const MemoryBudget& budget) {
  if (!s.has("file")) return topology::read_blueprint(s, "single-switch");
  // A topology file, relative to the experiment file's folder.
  std::filesystem::path path = s.required<std::string>("file");
  if (path.is_relative()) path = base_dir / path;
  const std::string format = s.choice("format", topology::topology_format_names(), "auto");
  s.finish();
  return located(s, [&] { return topology::load_topology(path.string(), topology::parse_topology_format(format), budget); });
}

namespace {

workload::GroupSpec read_group(config::Reader g, std::string name, std::uint32_t rank_count) {
  workload::GroupSpec spec;
  spec.name = std::move(name);
  const bool block = g.has("block"), stride = g.has("stride"), ranks = g.has("ranks");
  if (block + stride + ranks != 1) {
    g.fail("", "a group needs exactly one of 'block: K' (consecutive blocks of K ranks), "
               "'stride: K' (ranks equal modulo K) or 'ranks: [list]'");
  }
  if (block) {
    spec.shape = workload::GroupSpec::Shape::kBlock;
    spec.k = read_required_count(g, "block");
  } else if (stride) {
    spec.shape = workload::GroupSpec::Shape::kStride;
    spec.k = read_required_count(g, "stride");
  } else {
    spec.shape = workload::GroupSpec::Shape::kExplicit;
    for (std::uint64_t r : g.list<std::uint64_t>("ranks")) {
      if (r > std::numeric_limits<std::uint32_t>::max()) g.fail("ranks", fmt::format("rank {} is too large", r));
      spec.ranks.push_back(static_cast<std::uint32_t>(r));
    }
  }
  g.finish();
  located(g, [&] { return workload::make_group(spec, rank_count); });  // shape errors point here
  return spec;
}

workload::CollectiveEntry read_entry(config::Reader c, const std::vector<workload::GroupSpec>& groups) {
  workload::CollectiveEntry entry;
  const std::string op = c.required<std::string>("op");
  entry.op = located(c, [&] { return collective::parse_collective_op(op); });
  entry.group = c.optional<std::string>("group", "world");
  const bool known = entry.group == "world" ||
                     std::any_of(groups.begin(), groups.end(), [&](const auto& g) { return g.name == entry.group; });
  if (!known) c.fail("group", fmt::format("unknown group '{}'; define it under workload.groups", entry.group));
  entry.size = c.required<config::Size>("size");
  if (entry.size == 0) c.fail("size", "must be positive");
  entry.repeat = read_count(c, "repeat", 1);
  if (c.has("algorithm")) {
    const std::string algorithm = c.required<std::string>("algorithm");
    entry.algorithm = located(c, [&] { return collective::parse_algorithm(algorithm); });
  }
  c.finish();
  return entry;
}

}  // namespace

workload::Workload read_microbenchmark(config::Reader& s, std::uint32_t gpu_count, const MemoryBudget& budget) {
  const std::uint32_t ranks = read_count(s, "ranks", gpu_count, 1, gpu_count);
  workload::MicrobenchmarkSpec spec;
  if (auto groups = s.optional_child("groups")) {
    for (const std::string& name : groups->keys()) {
      spec.groups.push_back(read_group(groups->child(name), name, ranks));
    }
    groups->finish();
  }
  for (config::Reader entry : s.list_of_maps("collectives")) spec.collectives.push_back(read_entry(entry, spec.groups));
  s.finish();
  const workload::WorkloadCounts counts = located(s, [&] { return workload::count_microbenchmark(spec, ranks); });
  check_fits(s, "collectives", counts, budget);
  return located(s, [&] { return workload::make_microbenchmark(spec, ranks); });
}

system::RuntimeOptions read_collective(config::Reader s, const std::filesystem::path& base_dir) {
  system::RuntimeOptions options;
  std::vector<std::string_view> algorithms = {"auto"};
  for (collective::Algorithm a : collective::all_algorithms()) algorithms.push_back(collective::to_string(a));
  const std::string algorithm = s.choice("algorithm", algorithms, "auto");
  options.auto_tune = algorithm == "auto";
  if (!options.auto_tune) options.default_algorithm = collective::parse_algorithm(algorithm);
  std::vector<std::string_view> gpus;
  for (const collective::GpuModel& g : collective::all_gpu_models()) gpus.push_back(g.name);
  options.gpu = &collective::gpu_model(s.choice("gpu", gpus, "h100"));
  options.channels = read_count_or_auto(s, "channels", 1, 64);
  options.chunks = read_count_or_auto(s, "chunks", 1, 1024);
  std::vector<std::string_view> protocols = {"auto"};
  for (collective::Protocol p : collective::all_protocols()) protocols.push_back(collective::to_string(p));
  const std::string protocol = s.choice("protocol", protocols, "auto");
  if (protocol != "auto") options.protocol = collective::parse_protocol(protocol);
  if (s.choice("hop_latency", {"nccl", "none"}, "nccl") == "nccl") options.protocol_costs = collective::nccl_protocol_costs();
  options.direct_window = read_count(s, "direct_window", options.direct_window);
  if (s.has("gpu") && !options.auto_tune && options.channels && options.chunks && options.protocol) {
    s.fail("gpu", "has no effect: the algorithm, protocol, channels and chunks are all set, so the tuner (whose GPU "
                  "model this is) chooses nothing; expected one of them left out or auto");
  }
  if (s.has("plans")) {
    for (const std::string& file : s.list<std::string>("plans")) {
      const std::filesystem::path path = base_dir / file;
      options.custom_plans.push_back(located(s, [&] {
        auto program = std::make_shared<const collective::msccl::Program>(collective::msccl::read_plan_file(path.string()));
        if (!collective::msccl::plan_operation(program->plan())) {
          throw UserError(fmt::format("plan '{}' implements '{}', which Loom has no operation for", path.string(),
                                      program->plan().collective));
        }
        return system::CustomPlan{program->plan().name.empty() ? file : program->plan().name, program};
      }));
    }
  }
  s.finish();
  return options;
}

bool read_output_report(config::Reader& output) {
  const bool report = output.optional<bool>("report", false);
  if (report && !report::html::plotting_library_available()) {
    output.fail("report", "this loom was built without the plotting libraries (run scripts/install-deps.sh, then "
                          "rebuild), so it cannot write an HTML report");
  }
  return report;
}

}  // namespace loom::experiment
