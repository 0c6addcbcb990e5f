#include "loom/workload/chakra/chakra_reader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <queue>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>

#include "loom/core/error.h"
#include "loom/workload/chakra/chakra_attributes.h"
#include "loom/workload/chakra/et_def.pb.h"
#include "loom/workload/chakra/et_file.h"
#include "loom/workload/chakra/process_groups.h"

namespace loom::workload::chakra {
namespace {

using ChakraProtoMsg::GlobalMetadata;
using PNode = ChakraProtoMsg::Node;

struct RankTrace {
  std::string file;
  std::vector<PNode> nodes;
  std::vector<NodeAttributes> attrs;
  std::vector<std::uint32_t> order;  // topological, file order where possible
};

std::string node_at(const std::string& file, std::uint64_t id) { return fmt::format("{}: node {}", file, id); }

// Schema versions before 0.0.4 were proto2 with other field meanings: decoding them as 0.0.4
// "works" and silently gives wrong values.
void check_version(const GlobalMetadata& meta, const std::string& file, WarningLog& log, std::string& version) {
  version = meta.version();
  std::string schema;
  for (const auto& a : meta.attr()) {
    if (a.name() == "schema" && a.value_case() == ChakraProtoMsg::AttributeProto::kStringVal) schema = a.string_val();
  }
  for (std::string_view old : {"0.0.1", "0.0.2", "0.0.3"}) {
    if (version == old) {
      throw UserError(fmt::format("{}: Chakra schema version {} is not supported (its nodes decode with other "
                                  "meanings); expected 0.0.4 or later, re-convert the trace with a current Chakra",
                                  file, version));
    }
  }
  if (version.empty()) {
    log.add(file, "version", file,
            schema.empty() ? "GlobalMetadata.version is empty and there is no 'schema' attribute; read as 0.0.4"
                           : fmt::format("GlobalMetadata.version is empty (schema '{}'); read as 0.0.4", schema));
  }
}

// `held` is set to about the bytes the rank's reading holds at its peak: the file, and per decoded
// message its object and its encoded size again (what its strings and lists hold).
RankTrace load_rank(const std::string& file, WarningLog& log, std::string& version, std::uint64_t& held) {
  RankTrace rank;
  rank.file = file;
  const std::string bytes = read_et_bytes(file);
  const std::vector<std::string_view> records = split_records(bytes, file);
  if (records.empty()) throw UserError(fmt::format("{}: empty file, expected a Chakra GlobalMetadata record", file));
  // A corrupt record becomes the UserError below; protobuf's own log lines about it would only
  // clutter the message.
  const google::protobuf::LogSilencer quiet;
  GlobalMetadata meta;
  if (!meta.ParseFromArray(records[0].data(), static_cast<int>(records[0].size()))) {
    throw UserError(fmt::format("{}: the first record is not a Chakra GlobalMetadata message", file));
  }
  check_version(meta, file, log, version);
  rank.nodes.resize(records.size() - 1);
  rank.attrs.reserve(records.size() - 1);
  for (std::size_t i = 1; i < records.size(); ++i) {
    PNode& node = rank.nodes[i - 1];
    if (!node.ParseFromArray(records[i].data(), static_cast<int>(records[i].size()))) {
      throw UserError(fmt::format("{}: record {} is not a valid Chakra Node message", file, i));
    }
    rank.attrs.push_back(decode_attributes(node.attr()));
    for (std::string& odd : rank.attrs.back().odd) {
      log.add(file, "attribute", node_at(file, node.id()), std::move(odd));
    }
    held += sizeof(PNode) + records[i].size();  // protobuf's exact count (SpaceUsedLong) costs half the read
  }
  held += bytes.size() + rank.attrs.capacity() * sizeof(NodeAttributes);
  return rank;
}

// Kahn's algorithm taking the lowest file index first; false if `deps` has a cycle.
bool topological_order(const std::vector<std::vector<std::uint32_t>>& deps, std::vector<std::uint32_t>& order,
                       std::uint32_t& stuck) {
  const auto n = static_cast<std::uint32_t>(deps.size());
  std::vector<std::uint32_t> indegree(n, 0);
  std::vector<std::vector<std::uint32_t>> dependents(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    indegree[i] = static_cast<std::uint32_t>(deps[i].size());
    for (std::uint32_t d : deps[i]) dependents[d].push_back(i);
  }
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push(i);
  }
  order.clear();
  order.reserve(n);
  while (!ready.empty()) {
    const std::uint32_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::uint32_t d : dependents[i]) {
      if (--indegree[d] == 0) ready.push(d);
    }
  }
  if (order.size() == n) return true;
  stuck = static_cast<std::uint32_t>(std::find_if(indegree.begin(), indegree.end(), [](auto v) { return v > 0; }) -
                                     indegree.begin());
  return false;
}

// Local dependency lists (indices into rank.nodes), with dangling and self references warned
// and dropped, and rank.order set to a topological order. Real PyTorch-converted traces have
// control dependencies that point forward in the file (an operator on the kernel it launched)
// and close cycles with data dependencies; when the graph is cyclic, forward control
// dependencies are dropped with a warning. A cycle that remains is an error.
std::vector<std::vector<std::uint32_t>> order_rank(RankTrace& rank, WarningLog& log) {
  const auto n = static_cast<std::uint32_t>(rank.nodes.size());
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  index.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!index.emplace(rank.nodes[i].id(), i).second) {
      throw UserError(fmt::format("{}: node id {} appears twice; expected unique node ids per rank", rank.file,
                                  rank.nodes[i].id()));
    }
  }
  std::vector<std::vector<std::uint32_t>> deps(n);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> forward_ctrl;  // (node, dep) with dep later in the file
  for (std::uint32_t i = 0; i < n; ++i) {
    const PNode& node = rank.nodes[i];
    auto add = [&](std::uint64_t dep, std::string_view kind) {
      const auto it = index.find(dep);
      if (it == index.end()) {
        log.add(rank.file, fmt::format("dangling {} dep", kind), node_at(rank.file, node.id()),
                fmt::format("{} dependency on node {}, which is not in the trace; dropped", kind, dep));
      } else if (it->second == i) {
        log.add(rank.file, "self dep", node_at(rank.file, node.id()), "depends on itself; dropped");
      } else {
        deps[i].push_back(it->second);
        if (kind == "ctrl" && it->second > i) forward_ctrl.emplace_back(i, it->second);
      }
    };
    for (std::uint64_t d : node.data_deps()) add(d, "data");
    for (std::uint64_t d : node.ctrl_deps()) add(d, "ctrl");
    std::sort(deps[i].begin(), deps[i].end());
    deps[i].erase(std::unique(deps[i].begin(), deps[i].end()), deps[i].end());
  }
  std::uint32_t stuck = 0;
  if (topological_order(deps, rank.order, stuck)) return deps;
  for (const auto& [node, dep] : forward_ctrl) {
    auto& list = deps[node];
    const auto it = std::lower_bound(list.begin(), list.end(), dep);
    if (it == list.end() || *it != dep) continue;
    const bool also_data = std::find(rank.nodes[node].data_deps().begin(), rank.nodes[node].data_deps().end(),
                                     rank.nodes[dep].id()) != rank.nodes[node].data_deps().end();
    if (also_data) continue;
    list.erase(it);
    log.add(rank.file, "forward ctrl dep", node_at(rank.file, rank.nodes[node].id()),
            fmt::format("ctrl dependency on later node {} closes a cycle in this trace; dropped",
                        rank.nodes[dep].id()));
  }
  if (!topological_order(deps, rank.order, stuck)) {
    throw UserError(fmt::format("{}: dependency cycle through node {}; a trace must be acyclic", rank.file,
                                rank.nodes[stuck].id()));
  }
  return deps;
}

std::optional<collective::CollectiveOp> collective_op(std::int64_t comm_type) {
  using collective::CollectiveOp;
  switch (comm_type) {
    case ChakraProtoMsg::ALL_REDUCE: return CollectiveOp::kAllReduce;
    case ChakraProtoMsg::REDUCE: return CollectiveOp::kReduce;
    case ChakraProtoMsg::ALL_GATHER: return CollectiveOp::kAllGather;
    case ChakraProtoMsg::GATHER: return CollectiveOp::kGather;
    case ChakraProtoMsg::SCATTER: return CollectiveOp::kScatter;
    case ChakraProtoMsg::BROADCAST: return CollectiveOp::kBroadcast;
    case ChakraProtoMsg::ALL_TO_ALL: return CollectiveOp::kAllToAll;
    case ChakraProtoMsg::REDUCE_SCATTER: return CollectiveOp::kReduceScatter;
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK: return CollectiveOp::kReduceScatter;
    case ChakraProtoMsg::BARRIER: return CollectiveOp::kBarrier;
    default: return std::nullopt;
  }
}

Bytes size_attribute(std::optional<std::int64_t> value, const std::string& where, std::string_view name) {
  if (!value) return 0;
  if (*value < 0) throw UserError(fmt::format("{}: {} is {}, expected a byte count >= 0", where, name, *value));
  return static_cast<Bytes>(*value);
}

// Fills the Loom fields of `out` that Loom's writer stores as attributes.
void apply_loom_attributes(const NodeAttributes& a, Node& out, const std::string& where) {
  if (a.loom_stream) out.stream = static_cast<std::uint8_t>(*a.loom_stream);
  if (a.loom_iteration) out.iteration = static_cast<std::uint32_t>(*a.loom_iteration);
  if (a.loom_layer) out.layer = static_cast<std::uint16_t>(*a.loom_layer);
  if (a.loom_micro_batch) out.micro_batch = static_cast<std::uint16_t>(*a.loom_micro_batch);
  if (a.loom_dtype) out.dtype = parse_data_type(*a.loom_dtype);
  if (a.loom_algorithm) out.algorithm = collective::parse_algorithm(*a.loom_algorithm);
  if (a.loom_compute_kind) {
    bool found = false;
    for (ComputeKind k : {ComputeKind::kGemm, ComputeKind::kAttention, ComputeKind::kElementwise, ComputeKind::kOther}) {
      if (to_string(k) == *a.loom_compute_kind) {
        out.compute_kind = k;
        found = true;
      }
    }
    if (!found) throw UserError(fmt::format("{}: unknown loom_compute_kind '{}'", where, *a.loom_compute_kind));
  }
}

// One rank's nodes as they will be added, read from its file: converted but for collectives'
// communicators, whose `communicator` holds an index into Importer::pg_names_ until every file
// has been read. Dependencies are indices into `nodes`. The protobuf messages it came from are
// released before the next file is read.
struct CompactRank {
  struct Pending {
    std::uint32_t node = 0;  // logged just before nodes[node] is added, as when files were read whole
    std::string category, where, message;
  };
  std::string file;
  std::vector<Node> nodes;
  std::vector<std::uint32_t> dep_end;  // per node, the end of its dependencies in `deps`
  std::vector<std::uint32_t> deps;
  std::vector<Pending> warnings;

  std::uint64_t bytes() const {
    return nodes.capacity() * sizeof(Node) + (dep_end.capacity() + deps.capacity()) * sizeof(std::uint32_t);
  }
};

class Importer {
 public:
  Importer(Workload& workload, const ReadOptions& options, WarningLog& log)
      : workload_(workload), groups_(workload, options, log), log_(log) {}

  // The groups' declarations and uses in `trace` (in file order), then its nodes in `trace.order`
  // converted, dependencies through metadata nodes resolved to what those depend on.
  CompactRank compact(std::uint32_t rank, const RankTrace& trace, const std::vector<std::vector<std::uint32_t>>& deps) {
    for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
      const PNode& node = trace.nodes[i];
      if (node.type() == ChakraProtoMsg::METADATA_NODE) {
        groups_.declare(node.inputs().values(), trace.file, node_at(trace.file, node.id()));
      }
      if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) groups_.note_use(trace.attrs[i].pg_name.value_or(""), rank);
    }
    constexpr std::uint32_t kNone = 0xffffffffu;
    CompactRank out;
    out.file = trace.file;
    out.nodes.reserve(trace.nodes.size());
    out.dep_end.reserve(trace.nodes.size());
    std::size_t listed = 0;
    for (const std::vector<std::uint32_t>& d : deps) listed += d.size();
    out.deps.reserve(listed);
    std::vector<std::uint32_t> emitted(trace.nodes.size(), kNone);
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> forwarded;  // metadata nodes: their resolved deps
    std::vector<std::uint32_t> resolved;
    for (std::uint32_t i : trace.order) {
      resolved.clear();
      for (std::uint32_t d : deps[i]) {
        if (emitted[d] != kNone) {
          resolved.push_back(emitted[d]);
        } else {
          const std::vector<std::uint32_t>& through = forwarded[d];
          resolved.insert(resolved.end(), through.begin(), through.end());
        }
      }
      std::sort(resolved.begin(), resolved.end());
      resolved.erase(std::unique(resolved.begin(), resolved.end()), resolved.end());
      if (trace.nodes[i].type() == ChakraProtoMsg::METADATA_NODE) {
        forwarded[i] = resolved;
        continue;
      }
      emitted[i] = static_cast<std::uint32_t>(out.nodes.size());
      out.nodes.push_back(convert(rank, trace, i, out));
      out.deps.insert(out.deps.end(), resolved.begin(), resolved.end());
      out.dep_end.push_back(static_cast<std::uint32_t>(out.deps.size()));
    }
    return out;
  }

  // Once every rank has been compacted: the declaration warnings, then the declared groups.
  void finish_groups(const std::string& first_file) {
    groups_.flush_declaration_warnings();
    groups_.create_declared(first_file);
  }

  // Adds `c`'s nodes (rank by rank, in rank order), creating communicators on first use.
  void add(const CompactRank& c) {
    const NodeId base = workload_.node_count();
    std::vector<NodeId> deps;
    std::size_t warning = 0;
    for (std::uint32_t k = 0; k < c.nodes.size(); ++k) {
      for (; warning < c.warnings.size() && c.warnings[warning].node == k; ++warning) {
        const CompactRank::Pending& p = c.warnings[warning];
        log_.add(c.file, p.category, p.where, p.message);
      }
      Node node = c.nodes[k];
      if (node.kind == NodeKind::kCollective) node.communicator = groups_.communicator(pg_names_[node.communicator], c.file);
      deps.clear();
      for (std::uint32_t d = k == 0 ? 0 : c.dep_end[k - 1]; d < c.dep_end[k]; ++d) deps.push_back(base + c.deps[d]);
      workload_.add_node(node, deps);
    }
  }

 private:
  std::uint32_t pg_index(const std::string& pg_name) {
    const auto [it, added] = pg_ids_.try_emplace(pg_name, static_cast<std::uint32_t>(pg_names_.size()));
    if (added) pg_names_.push_back(pg_name);
    return it->second;
  }

  Node convert(std::uint32_t rank, const RankTrace& trace, std::uint32_t i, CompactRank& out) {
    const PNode& pn = trace.nodes[i];
    const NodeAttributes& a = trace.attrs[i];
    const std::string where = node_at(trace.file, pn.id());
    auto warn = [&](std::string category, std::string message) {
      out.warnings.push_back({static_cast<std::uint32_t>(out.nodes.size()), std::move(category), where, std::move(message)});
    };
    Node node;
    node.rank = rank;
    node.label = workload_.intern_label(pn.name().empty() ? where : pn.name());
    node.duration = a.loom_duration_ps ? Time::ps(*a.loom_duration_ps)
                                       : Time::us(static_cast<std::int64_t>(pn.duration_micros()));
    apply_loom_attributes(a, node, where);
    switch (pn.type()) {
      case ChakraProtoMsg::COMP_NODE:
      case ChakraProtoMsg::MEM_LOAD_NODE:
      case ChakraProtoMsg::MEM_STORE_NODE:
        node.kind = NodeKind::kCompute;
        node.flops = static_cast<std::uint64_t>(std::max<std::int64_t>(0, a.num_ops.value_or(0)));
        node.bytes = size_attribute(a.tensor_size, where, "tensor_size");
        return node;
      case ChakraProtoMsg::COMM_COLL_NODE: {
        if (!a.comm_type) {
          warn("collective without comm_type", "COMM_COLL_NODE has no comm_type; kept as a compute node of its duration");
          node.kind = NodeKind::kCompute;
          return node;
        }
        const auto op = collective_op(*a.comm_type);
        if (!op) {
          throw UserError(fmt::format("{}: comm_type {} is not a Chakra CollectiveCommType (expected 0..9)", where,
                                      *a.comm_type));
        }
        node.kind = NodeKind::kCollective;
        node.op = *op;
        node.bytes = size_attribute(a.comm_size, where, "comm_size");
        node.communicator = pg_index(a.pg_name.value_or(""));
        return node;
      }
      case ChakraProtoMsg::COMM_SEND_NODE:
      case ChakraProtoMsg::COMM_RECV_NODE: {
        const bool send = pn.type() == ChakraProtoMsg::COMM_SEND_NODE;
        node.kind = send ? NodeKind::kSend : NodeKind::kRecv;
        if (a.comm_type) {
          warn("comm_type on p2p", fmt::format("{} node carries comm_type {}; ignored", send ? "send" : "recv", *a.comm_type));
        }
        const std::optional<std::int64_t> peer = send ? a.comm_dst : a.comm_src;
        if (!peer || *peer < 0) {
          throw UserError(fmt::format("{}: {} node without a valid {}; expected the peer rank", where,
                                      send ? "send" : "recv", send ? "comm_dst" : "comm_src"));
        }
        const std::optional<std::int64_t> self = send ? a.comm_src : a.comm_dst;
        if (self && *self != rank) {
          warn("p2p self", fmt::format("{} is {} but the node is in rank {}'s trace; the trace's rank is used",
                                       send ? "comm_src" : "comm_dst", *self, rank));
        }
        node.peer = static_cast<std::uint32_t>(*peer);
        node.tag = static_cast<std::uint32_t>(a.comm_tag.value_or(0));
        node.bytes = size_attribute(a.comm_size, where, "comm_size");
        return node;
      }
      default:
        throw UserError(fmt::format("{}: node type {} is not supported; expected COMP, COMM_COLL, COMM_SEND, "
                                    "COMM_RECV, MEM_LOAD, MEM_STORE or METADATA",
                                    where, static_cast<int>(pn.type())));
    }
  }

  Workload& workload_;
  ProcessGroups groups_;
  WarningLog& log_;
  std::vector<std::string> pg_names_;
  std::unordered_map<std::string, std::uint32_t> pg_ids_;
};

}  // namespace

std::vector<std::string> chakra_rank_files(const std::string& prefix) {
  std::vector<std::string> files;
  for (std::uint32_t r = 0;; ++r) {
    std::string file = fmt::format("{}.{}.et", prefix, r);
    if (!std::filesystem::exists(file)) break;
    files.push_back(std::move(file));
  }
  if (files.empty()) {
    throw UserError(fmt::format("no Chakra trace at '{}.0.et'; expected files <prefix>.<rank>.et", prefix));
  }
  // A gap would silently drop every rank after it: look for a higher rank's file.
  const std::filesystem::path path(prefix);
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  const std::string stem = path.filename().string() + ".";
  std::uint64_t highest = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(stem) || !name.ends_with(".et")) continue;
    const std::string_view digits = std::string_view(name).substr(stem.size(), name.size() - stem.size() - 3);
    std::uint64_t rank = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
    if (!digits.empty() && error == std::errc{} && end == digits.data() + digits.size()) highest = std::max(highest, rank);
  }
  if (highest >= files.size()) {
    throw UserError(fmt::format("Chakra trace '{}': rank {}'s file '{}.{}.et' is missing, but rank {}'s exists", prefix,
                                files.size(), prefix, files.size(), highest));
  }
  return files;
}

ChakraTrace read_chakra(const std::string& prefix, const ReadOptions& options) {
  return read_chakra_files(chakra_rank_files(prefix), options);
}

ChakraTrace read_chakra_files(const std::vector<std::string>& files, const ReadOptions& options) {
  if (files.empty()) throw UserError("no Chakra trace files given");
  WarningLog log;
  ChakraTrace trace{Workload(static_cast<std::uint32_t>(files.size())), {}, files, {}, 0};
  trace.workload.set_point_to_point(PointToPoint::kEager);  // ASTRA-sim's sends do not wait
  Importer importer(trace.workload, options, log);
  // One file at a time: its messages, then its compact form; the compact forms wait for every
  // file's process-group declarations and uses.
  std::vector<CompactRank> ranks;
  ranks.reserve(files.size());
  std::uint64_t compact_bytes = 0;
  for (std::uint32_t r = 0; r < files.size(); ++r) {
    std::string rank_version;
    std::uint64_t read_bytes = 0;
    RankTrace trace_of_rank = load_rank(files[r], log, rank_version, read_bytes);
    if (r == 0) trace.version = rank_version;
    const std::vector<std::vector<std::uint32_t>> deps = order_rank(trace_of_rank, log);
    trace.reader_peak_bytes = std::max(trace.reader_peak_bytes, compact_bytes + read_bytes);
    ranks.push_back(importer.compact(r, trace_of_rank, deps));
    compact_bytes += ranks.back().bytes();
  }
  trace.reader_peak_bytes = std::max(trace.reader_peak_bytes, compact_bytes);
  importer.finish_groups(files.front());
  for (CompactRank& rank : ranks) {
    importer.add(rank);
    rank = CompactRank{};
  }
  trace.warnings = log.finish();
  return trace;
}

}  // namespace loom::workload::chakra
