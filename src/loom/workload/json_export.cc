#include "loom/workload/json_export.h"

#include <sstream>

#include <nlohmann/json.hpp>

namespace loom::workload {
namespace {

nlohmann::json node_json(const Workload& w, NodeId id) {
  const Node& n = w.node(id);
  nlohmann::json j = {{"id", id}, {"rank", n.rank}, {"kind", std::string(to_string(n.kind))},
                      {"label", std::string(w.label(n.label))}};
  std::vector<NodeId> deps(w.deps(id).begin(), w.deps(id).end());
  j["deps"] = deps;
  switch (n.kind) {
    case NodeKind::kCompute:
      j["compute_kind"] = std::string(to_string(n.compute_kind));
      j["flops"] = n.flops;
      j["bytes"] = n.bytes;
      j["duration_ps"] = n.duration.picoseconds();
      break;
    case NodeKind::kCollective:
      j["op"] = std::string(collective::to_string(n.op));
      j["communicator"] = w.communicator(n.communicator).name;
      j["bytes"] = n.bytes;
      if (n.algorithm) j["algorithm"] = std::string(collective::to_string(*n.algorithm));
      break;
    case NodeKind::kSend:
    case NodeKind::kRecv:
      j["peer"] = n.peer;
      j["tag"] = n.tag;
      j["bytes"] = n.bytes;
      break;
  }
  if (n.stream != 0) j["stream"] = n.stream;
  if (n.iteration != 0) j["iteration"] = n.iteration;
  if (n.layer != kNoIndex) j["layer"] = n.layer;
  if (n.micro_batch != kNoIndex) j["micro_batch"] = n.micro_batch;
  if (n.dtype != DataType::kUnknown) j["dtype"] = std::string(to_string(n.dtype));
  return j;
}

}  // namespace

void write_json(const Workload& workload, std::ostream& out, const JsonExportOptions& options) {
  nlohmann::json doc;
  doc["ranks"] = workload.rank_count();
  nlohmann::json comms = nlohmann::json::array();
  for (CommunicatorId c = 0; c < workload.communicator_count(); ++c) {
    const Communicator& comm = workload.communicator(c);
    comms.push_back({{"id", c}, {"name", comm.name}, {"group", comm.group},
                     {"kind", std::string(to_string(comm.kind))}, {"ranks", comm.ranks}});
  }
  doc["communicators"] = std::move(comms);
  const std::uint64_t shown = options.max_nodes == 0 ? workload.node_count()
                                                     : std::min<std::uint64_t>(options.max_nodes, workload.node_count());
  nlohmann::json nodes = nlohmann::json::array();
  for (NodeId id = 0; id < shown; ++id) nodes.push_back(node_json(workload, id));
  doc["nodes"] = std::move(nodes);
  if (shown < workload.node_count()) doc["nodes_omitted"] = workload.node_count() - shown;
  out << doc.dump(options.indent) << '\n';
}

std::string to_json(const Workload& workload, const JsonExportOptions& options) {
  std::ostringstream out;
  write_json(workload, out, options);
  return out.str();
}

}  // namespace loom::workload
