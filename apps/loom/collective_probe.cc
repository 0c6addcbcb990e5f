#include "collective_probe.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/simulator.h"
#include "loom/network/models/backend_factory.h"
#include "loom/system/runtime.h"
#include "loom/system/switch_endpoints.h"
#include "loom/topology/routing.h"
#include "loom/workload/microbenchmark.h"

namespace loom::app {

namespace {
std::uint32_t parse_rank(std::string_view text, std::string_view item) {
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    throw UserError(fmt::format("rank list: '{}' is not a rank or a range A-B of ranks", item));
  }
  return value;
}
}  // namespace

std::vector<std::uint32_t> parse_rank_list(std::string_view text, std::uint32_t gpu_count) {
  std::vector<std::uint32_t> ranks;
  if (text.empty()) {
    for (std::uint32_t r = 0; r < gpu_count; ++r) ranks.push_back(r);
    return ranks;
  }
  std::vector<bool> seen(gpu_count, false);
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t dash = item.find('-');
    const std::uint32_t first = parse_rank(item.substr(0, dash), item);
    const std::uint32_t last = dash == std::string_view::npos ? first : parse_rank(item.substr(dash + 1), item);
    if (last < first) throw UserError(fmt::format("rank list: range '{}' runs backwards", item));
    if (last >= gpu_count) {
      throw UserError(fmt::format("rank list: rank {} in '{}' is out of range: the topology has {} GPUs (0..{})",
                                  last, item, gpu_count, gpu_count - 1));
    }
    for (std::uint32_t r = first; r <= last; ++r) {
      if (seen[r]) throw UserError(fmt::format("rank list: rank {} appears twice", r));
      seen[r] = true;
      ranks.push_back(r);
    }
  }
  return ranks;
}

std::uint32_t even_host_count(const topology::Topology& topology, const std::vector<std::uint32_t>& ranks) {
  std::map<std::uint32_t, std::uint32_t> per_host;
  for (std::uint32_t r : ranks) ++per_host[topology.host_of_rank(r)];
  const std::uint32_t g = per_host.begin()->second;
  for (const auto& [host, count] : per_host) {
    if (count != g) {
      std::string counts;
      for (const auto& [h, c] : per_host) counts += fmt::format("{}host {}: {}", counts.empty() ? "" : ", ", h, c);
      throw UserError(fmt::format(
          "the ranks are spread unevenly over hosts ({}); the tuner models the same number of ranks on "
          "every host: pick a rank list with as many ranks on each host",
          counts));
    }
  }
  return static_cast<std::uint32_t>(per_host.size());
}

bool nvls_possible(const topology::Topology& topology, const std::vector<std::uint32_t>& ranks) {
  collective::GroupLayout layout;
  std::map<std::uint32_t, std::uint32_t> dense;  // topology host -> index among the ranks' hosts
  for (std::uint32_t r : ranks) {
    const auto [it, added] = dense.try_emplace(topology.host_of_rank(r), static_cast<std::uint32_t>(dense.size()));
    layout.host.push_back(it->second);
  }
  std::string problem;
  system::shared_scale_up_switches(topology, ranks, layout, problem);
  return problem.empty();
}

Time simulate_choice(const ProbeRequest& request, const collective::TunerChoice& choice) {
  const topology::Topology& topo = *request.topology;
  workload::MicrobenchmarkSpec spec;
  spec.groups.push_back({"probe", workload::GroupSpec::Shape::kExplicit, 0, request.ranks});
  spec.collectives.push_back({request.op, "probe", request.size, 1, choice.algorithm});
  const workload::Workload work = workload::make_microbenchmark(spec, topo.gpu_count());

  system::RuntimeOptions options;
  options.default_algorithm = choice.algorithm;
  options.channels = choice.channels;
  options.chunks = choice.chunks;
  options.protocol = choice.protocol;
  options.protocol_costs = collective::nccl_protocol_costs();

  Simulator simulator;
  const topology::Routing routing(topo);
  network::NetworkParams params;
  params.mode = request.mode;
  const std::unique_ptr<network::Backend> backend = network::make_backend(simulator, topo, routing, params);
  system::Runtime runtime(simulator, topo, work, *backend, options);
  return runtime.run().makespan;
}

}  // namespace loom::app
