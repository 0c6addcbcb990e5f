#include "loom/workload/chakra/chakra_reader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <queue>
#include <set>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>
#include <nlohmann/json.hpp>

#include "loom/core/error.h"
#include "loom/workload/chakra/chakra_attributes.h"
#include "loom/workload/chakra/et_def.pb.h"
#include "loom/workload/chakra/et_file.h"

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

RankTrace load_rank(const std::string& file, WarningLog& log, std::string& version) {
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
  }
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

// Process groups: pg_name -> communicator, created on first use.
class GroupTable {
 public:
  GroupTable(Workload& workload, const ReadOptions& options, WarningLog& log)
      : workload_(workload), options_(options), log_(log) {}

  struct Declared {
    std::vector<std::uint32_t> ranks;
    std::string name, group, kind;
  };

  void declare_from_metadata(const RankTrace& rank, const PNode& node) {
    const nlohmann::json doc = nlohmann::json::parse(node.inputs().values(), nullptr, false);
    if (doc.is_discarded() || !doc.is_array()) {
      if (!node.inputs().values().empty()) {
        log_.add(rank.file, "metadata", node_at(rank.file, node.id()),
                 "METADATA_NODE inputs.values is not a JSON list of process groups; ignored");
      }
      return;
    }
    for (const nlohmann::json& pg : doc) {
      if (!pg.is_object() || !pg.contains("pg_name") || !pg.contains("ranks") || !pg["ranks"].is_array()) {
        log_.add(rank.file, "metadata", node_at(rank.file, node.id()),
                 "a process group entry lacks pg_name or a ranks list; ignored");
        continue;
      }
      const std::string pg_name = pg["pg_name"].is_string() ? pg["pg_name"].get<std::string>() : pg["pg_name"].dump();
      Declared d;
      for (const nlohmann::json& r : pg["ranks"]) {
        if (r.is_number_unsigned()) d.ranks.push_back(r.get<std::uint32_t>());
      }
      d.name = pg.value("loom_name", "");
      d.group = pg.value("loom_group", "");
      d.kind = pg.value("loom_kind", "");
      if (declared_.try_emplace(pg_name, std::move(d)).second) declared_order_.push_back(pg_name);
    }
  }

  // Creates every declared group in declaration order, so that a trace Loom wrote comes back
  // with the same communicator ids. Groups with no loaded member (some rank files of a larger
  // trace were loaded) are left out: no loaded node can use them.
  void create_declared(const std::string& where) {
    for (const std::string& pg_name : declared_order_) {
      const auto given = options_.process_groups.find(pg_name);
      const std::vector<std::uint32_t>& ranks =
          given != options_.process_groups.end() ? given->second : declared_.at(pg_name).ranks;
      const bool any_loaded = pg_name.empty() || pg_name == "0" ||
                              std::any_of(ranks.begin(), ranks.end(),
                                          [&](std::uint32_t r) { return r < workload_.rank_count(); });
      if (any_loaded) communicator(pg_name, where);
    }
  }

  void note_use(const std::string& pg_name, std::uint32_t rank) { users_[pg_name].insert(rank); }

  CommunicatorId communicator(const std::string& pg_name, const std::string& where) {
    const std::string key = pg_name == "0" ? "" : pg_name;
    if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
    Communicator c;
    const Declared* d = find_declared(key.empty() ? "0" : key);
    if (d == nullptr && key.empty()) d = find_declared("");
    if (key.empty()) {
      for (std::uint32_t r = 0; r < workload_.rank_count(); ++r) c.ranks.push_back(r);
      c.name = "world";
      c.kind = CommunicatorKind::kWorld;
    } else if (const auto opt = options_.process_groups.find(key); opt != options_.process_groups.end()) {
      c.ranks = loaded_only(opt->second, key, where);
    } else if (d != nullptr) {
      c.ranks = loaded_only(d->ranks, key, where);
    } else {
      const std::set<std::uint32_t>& users = users_[key];
      c.ranks.assign(users.begin(), users.end());
    }
    if (!key.empty()) {
      c.name = "pg:" + key;
      c.kind = communicator_kind_from_name(key);
    }
    c.group = c.name;
    if (d != nullptr) {
      if (!d->name.empty()) c.name = d->name;
      if (!d->group.empty()) c.group = d->group;
      if (!d->kind.empty()) c.kind = communicator_kind_from_name(d->kind);
    }
    if (c.ranks.empty()) {
      throw UserError(fmt::format("{}: process group '{}' has none of the {} loaded rank(s) as a member; this is one "
                                  "rank's file of a larger trace: load the whole trace by its prefix (the path "
                                  "without '.<rank>.et')",
                                  where, key, workload_.rank_count()));
    }
    const CommunicatorId id = workload_.add_communicator(std::move(c));
    ids_.emplace(key, id);
    return id;
  }

 private:
  const Declared* find_declared(const std::string& key) const {
    const auto it = declared_.find(key);
    return it == declared_.end() ? nullptr : &it->second;
  }

  std::vector<std::uint32_t> loaded_only(const std::vector<std::uint32_t>& ranks, const std::string& key,
                                         const std::string& where) {
    std::vector<std::uint32_t> kept;
    for (std::uint32_t r : ranks) {
      if (r < workload_.rank_count()) kept.push_back(r);
    }
    if (kept.size() != ranks.size()) {
      log_.add(where, "pg outside", where,
               fmt::format("process group '{}' names {} ranks that were not loaded (only {} trace files); they are "
                           "left out of the communicator",
                           key, ranks.size() - kept.size(), workload_.rank_count()));
    }
    return kept;
  }

  Workload& workload_;
  const ReadOptions& options_;
  WarningLog& log_;
  std::map<std::string, Declared, std::less<>> declared_;
  std::vector<std::string> declared_order_;
  std::map<std::string, std::set<std::uint32_t>, std::less<>> users_;
  std::map<std::string, CommunicatorId, std::less<>> ids_;
};

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

class Importer {
 public:
  Importer(Workload& workload, const ReadOptions& options, WarningLog& log)
      : workload_(workload), groups_(workload, options, log), log_(log) {}

  void declare_groups(const std::vector<RankTrace>& ranks) {
    for (std::uint32_t r = 0; r < ranks.size(); ++r) {
      for (std::size_t i = 0; i < ranks[r].nodes.size(); ++i) {
        const PNode& node = ranks[r].nodes[i];
        if (node.type() == ChakraProtoMsg::METADATA_NODE) groups_.declare_from_metadata(ranks[r], node);
        if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) groups_.note_use(ranks[r].attrs[i].pg_name.value_or(""), r);
      }
    }
    if (!ranks.empty()) groups_.create_declared(ranks.front().file);
  }

  void add_rank(std::uint32_t rank, const RankTrace& trace, const std::vector<std::vector<std::uint32_t>>& deps) {
    constexpr NodeId kNone = 0xffffffffu;
    std::vector<NodeId> emitted(trace.nodes.size(), kNone);
    std::unordered_map<std::uint32_t, std::vector<NodeId>> forwarded;  // metadata nodes: their resolved deps
    std::vector<NodeId> resolved;
    for (std::uint32_t i : trace.order) {
      resolved.clear();
      for (std::uint32_t d : deps[i]) {
        if (emitted[d] != kNone) {
          resolved.push_back(emitted[d]);
        } else {
          const std::vector<NodeId>& through = forwarded[d];
          resolved.insert(resolved.end(), through.begin(), through.end());
        }
      }
      std::sort(resolved.begin(), resolved.end());
      resolved.erase(std::unique(resolved.begin(), resolved.end()), resolved.end());
      const PNode& node = trace.nodes[i];
      if (node.type() == ChakraProtoMsg::METADATA_NODE) {
        forwarded[i] = resolved;
        continue;
      }
      emitted[i] = workload_.add_node(convert(rank, trace, i), resolved);
    }
  }

 private:
  Node convert(std::uint32_t rank, const RankTrace& trace, std::uint32_t i) {
    const PNode& pn = trace.nodes[i];
    const NodeAttributes& a = trace.attrs[i];
    const std::string where = node_at(trace.file, pn.id());
    Node out;
    out.rank = rank;
    out.label = workload_.intern_label(pn.name().empty() ? where : pn.name());
    out.duration = a.loom_duration_ps ? Time::ps(*a.loom_duration_ps)
                                      : Time::us(static_cast<std::int64_t>(pn.duration_micros()));
    apply_loom_attributes(a, out, where);
    switch (pn.type()) {
      case ChakraProtoMsg::COMP_NODE:
      case ChakraProtoMsg::MEM_LOAD_NODE:
      case ChakraProtoMsg::MEM_STORE_NODE:
        out.kind = NodeKind::kCompute;
        out.flops = static_cast<std::uint64_t>(std::max<std::int64_t>(0, a.num_ops.value_or(0)));
        out.bytes = size_attribute(a.tensor_size, where, "tensor_size");
        return out;
      case ChakraProtoMsg::COMM_COLL_NODE: {
        if (!a.comm_type) {
          log_.add(trace.file, "collective without comm_type", where,
                   "COMM_COLL_NODE has no comm_type; kept as a compute node of its duration");
          out.kind = NodeKind::kCompute;
          return out;
        }
        const auto op = collective_op(*a.comm_type);
        if (!op) {
          throw UserError(fmt::format("{}: comm_type {} is not a Chakra CollectiveCommType (expected 0..9)", where,
                                      *a.comm_type));
        }
        out.kind = NodeKind::kCollective;
        out.op = *op;
        out.bytes = size_attribute(a.comm_size, where, "comm_size");
        out.communicator = groups_.communicator(a.pg_name.value_or(""), trace.file);
        return out;
      }
      case ChakraProtoMsg::COMM_SEND_NODE:
      case ChakraProtoMsg::COMM_RECV_NODE: {
        const bool send = pn.type() == ChakraProtoMsg::COMM_SEND_NODE;
        out.kind = send ? NodeKind::kSend : NodeKind::kRecv;
        if (a.comm_type) {
          log_.add(trace.file, "comm_type on p2p", where,
                   fmt::format("{} node carries comm_type {}; ignored", send ? "send" : "recv", *a.comm_type));
        }
        const std::optional<std::int64_t> peer = send ? a.comm_dst : a.comm_src;
        if (!peer || *peer < 0) {
          throw UserError(fmt::format("{}: {} node without a valid {}; expected the peer rank", where,
                                      send ? "send" : "recv", send ? "comm_dst" : "comm_src"));
        }
        const std::optional<std::int64_t> self = send ? a.comm_src : a.comm_dst;
        if (self && *self != rank) {
          log_.add(trace.file, "p2p self", where,
                   fmt::format("{} is {} but the node is in rank {}'s trace; the trace's rank is used",
                               send ? "comm_src" : "comm_dst", *self, rank));
        }
        out.peer = static_cast<std::uint32_t>(*peer);
        out.tag = static_cast<std::uint32_t>(a.comm_tag.value_or(0));
        out.bytes = size_attribute(a.comm_size, where, "comm_size");
        return out;
      }
      default:
        throw UserError(fmt::format("{}: node type {} is not supported; expected COMP, COMM_COLL, COMM_SEND, "
                                    "COMM_RECV, MEM_LOAD, MEM_STORE or METADATA",
                                    where, static_cast<int>(pn.type())));
    }
  }

  Workload& workload_;
  GroupTable groups_;
  WarningLog& log_;
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
  std::vector<RankTrace> ranks;
  std::vector<std::vector<std::vector<std::uint32_t>>> deps;
  std::string version;
  for (std::size_t r = 0; r < files.size(); ++r) {
    std::string rank_version;
    ranks.push_back(load_rank(files[r], log, rank_version));
    if (r == 0) version = rank_version;
    deps.push_back(order_rank(ranks.back(), log));
  }
  ChakraTrace trace{Workload(static_cast<std::uint32_t>(files.size())), {}, files, version};
  Importer importer(trace.workload, options, log);
  importer.declare_groups(ranks);
  for (std::uint32_t r = 0; r < ranks.size(); ++r) importer.add_rank(r, ranks[r], deps[r]);
  trace.warnings = log.finish();
  return trace;
}

}  // namespace loom::workload::chakra
