#include "loom/workload/microbenchmark.h"

#include <map>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload {

std::vector<Communicator> make_group(const GroupSpec& group, std::uint32_t rank_count) {
  std::vector<Communicator> comms;
  auto check_divides = [&](const char* what) {
    if (group.k == 0 || rank_count % group.k != 0) {
      throw UserError(fmt::format("group '{}': {} {} must be a positive divisor of the rank count {}",
                                  group.name, what, group.k, rank_count));
    }
  };
  switch (group.shape) {
    case GroupSpec::Shape::kAll: {
      Communicator c{group.name, group.name, {}};
      for (std::uint32_t r = 0; r < rank_count; ++r) c.ranks.push_back(r);
      comms.push_back(std::move(c));
      break;
    }
    case GroupSpec::Shape::kBlock: {
      check_divides("block");
      for (std::uint32_t b = 0; b < rank_count / group.k; ++b) {
        Communicator c{fmt::format("{}.{}", group.name, b), group.name, {}};
        for (std::uint32_t i = 0; i < group.k; ++i) c.ranks.push_back(b * group.k + i);
        comms.push_back(std::move(c));
      }
      break;
    }
    case GroupSpec::Shape::kStride: {
      check_divides("stride");
      for (std::uint32_t j = 0; j < group.k; ++j) {
        Communicator c{fmt::format("{}.{}", group.name, j), group.name, {}};
        for (std::uint32_t r = j; r < rank_count; r += group.k) c.ranks.push_back(r);
        comms.push_back(std::move(c));
      }
      break;
    }
    case GroupSpec::Shape::kExplicit:
      if (group.ranks.empty()) throw UserError(fmt::format("group '{}' lists no ranks", group.name));
      comms.push_back(Communicator{group.name, group.name, group.ranks});
      break;
  }
  if (comms.size() == 1) comms.front().name = group.name;
  for (Communicator& c : comms) c.kind = communicator_kind_from_name(group.name);
  return comms;
}

Workload make_microbenchmark(const MicrobenchmarkSpec& spec, std::uint32_t rank_count) {
  Workload workload(rank_count);

  // Communicators of each named group; "world" exists unless the user redefines it.
  std::map<std::string, std::vector<CommunicatorId>, std::less<>> groups;
  auto add_group = [&](const GroupSpec& g) {
    if (groups.contains(g.name)) throw UserError(fmt::format("group '{}' is defined twice", g.name));
    std::vector<CommunicatorId> ids;
    for (Communicator& c : make_group(g, rank_count)) ids.push_back(workload.add_communicator(std::move(c)));
    groups.emplace(g.name, std::move(ids));
  };
  bool world_defined = false;
  for (const GroupSpec& g : spec.groups) {
    add_group(g);
    world_defined = world_defined || g.name == "world";
  }
  if (!world_defined) add_group(GroupSpec{"world", GroupSpec::Shape::kAll, 0, {}});

  if (spec.collectives.empty()) throw UserError("the microbenchmark lists no collectives");
  std::vector<std::int64_t> last_node(rank_count, -1);
  for (std::size_t e = 0; e < spec.collectives.size(); ++e) {
    const CollectiveEntry& entry = spec.collectives[e];
    const auto it = groups.find(entry.group);
    if (it == groups.end()) {
      throw UserError(fmt::format("collectives[{}]: unknown group '{}'", e, entry.group));
    }
    if (entry.size == 0) throw UserError(fmt::format("collectives[{}]: size must be positive", e));
    if (entry.repeat == 0) throw UserError(fmt::format("collectives[{}]: repeat must be positive", e));
    const LabelId label = workload.intern_label(fmt::format(
        "collectives[{}] {} on {} ({})", e, collective::to_string(entry.op), entry.group, format_size(entry.size)));
    for (std::uint32_t rep = 0; rep < entry.repeat; ++rep) {
      for (CommunicatorId comm : it->second) {
        for (std::uint32_t rank : workload.communicator(comm).ranks) {
          Node node;
          node.kind = NodeKind::kCollective;
          node.op = entry.op;
          node.algorithm = entry.algorithm;
          node.rank = rank;
          node.communicator = comm;
          node.label = label;
          node.bytes = entry.size;
          const std::int64_t prev = last_node[rank];
          const NodeId dep = static_cast<NodeId>(prev);
          last_node[rank] = workload.add_node(node, prev < 0 ? std::span<const NodeId>{} : std::span(&dep, 1));
        }
      }
    }
  }
  return workload;
}

WorkloadCounts count_microbenchmark(const MicrobenchmarkSpec& spec, std::uint32_t rank_count) {
  struct Group {
    std::uint64_t members = 0;        // over its communicators
    std::uint64_t communicators = 0;  // one operation each per entry and repeat
  };
  std::map<std::string, Group, std::less<>> groups;
  for (const GroupSpec& g : spec.groups) {
    Group& group = groups[g.name];
    for (const Communicator& c : make_group(g, rank_count)) {
      group.members += c.ranks.size();
      ++group.communicators;
    }
  }
  groups.emplace("world", Group{rank_count, 1});
  WorkloadCounts counts;
  counts.ranks = rank_count;
  for (std::size_t e = 0; e < spec.collectives.size(); ++e) {
    const CollectiveEntry& entry = spec.collectives[e];
    const auto it = groups.find(entry.group);
    if (it == groups.end()) throw UserError(fmt::format("collectives[{}]: unknown group '{}'", e, entry.group));
    counts.nodes += it->second.members * entry.repeat;
    counts.collectives += it->second.communicators * entry.repeat;
  }
  // Every node but each rank's first depends on the one before it (ranks no group holds have
  // none, so this may count a few too few).
  counts.dependencies = counts.nodes - std::min<std::uint64_t>(counts.nodes, rank_count);
  return counts;
}

}  // namespace loom::workload
