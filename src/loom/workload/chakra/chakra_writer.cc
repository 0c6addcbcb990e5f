#include "loom/workload/chakra/chakra_writer.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/core/error.h"
#include "loom/workload/chakra/chakra_attributes.h"
#include "loom/workload/chakra/et_def.pb.h"
#include "loom/workload/chakra/et_file.h"

namespace loom::workload::chakra {
namespace {

ChakraProtoMsg::CollectiveCommType comm_type(collective::CollectiveOp op, std::string_view where) {
  using collective::CollectiveOp;
  switch (op) {
    case CollectiveOp::kAllReduce: return ChakraProtoMsg::ALL_REDUCE;
    case CollectiveOp::kAllGather: return ChakraProtoMsg::ALL_GATHER;
    case CollectiveOp::kReduceScatter: return ChakraProtoMsg::REDUCE_SCATTER;
    case CollectiveOp::kAllToAll: return ChakraProtoMsg::ALL_TO_ALL;
    case CollectiveOp::kBroadcast: return ChakraProtoMsg::BROADCAST;
    case CollectiveOp::kReduce: return ChakraProtoMsg::REDUCE;
    case CollectiveOp::kGather: return ChakraProtoMsg::GATHER;
    case CollectiveOp::kScatter: return ChakraProtoMsg::SCATTER;
    case CollectiveOp::kBarrier: return ChakraProtoMsg::BARRIER;
    case CollectiveOp::kAllToAllV: break;
  }
  throw UserError(fmt::format("{}: {} has no Chakra comm_type; it cannot be written as a Chakra trace", where,
                              collective::to_string(op)));
}

// pg_name of each communicator: "0" for the first that is the whole world in rank order.
std::vector<std::string> pg_names(const Workload& w) {
  std::vector<std::string> names(w.communicator_count());
  bool world_taken = false;
  for (CommunicatorId c = 0; c < w.communicator_count(); ++c) {
    const auto& ranks = w.communicator(c).ranks;
    bool world = ranks.size() == w.rank_count();
    for (std::uint32_t i = 0; world && i < ranks.size(); ++i) world = ranks[i] == i;
    names[c] = world && !world_taken ? "0" : w.communicator(c).name;
    world_taken = world_taken || world;
  }
  return names;
}

std::string groups_json(const Workload& w, const std::vector<std::string>& names) {
  nlohmann::json list = nlohmann::json::array();
  for (CommunicatorId c = 0; c < w.communicator_count(); ++c) {
    const Communicator& comm = w.communicator(c);
    list.push_back({{"pg_name", names[c]},
                    {"ranks", comm.ranks},
                    {"loom_name", comm.name},
                    {"loom_group", comm.group},
                    {"loom_kind", std::string(to_string(comm.kind))}});
  }
  return list.dump();
}

void fill_node(const Workload& w, NodeId id, std::uint64_t local_id, const std::vector<std::string>& pg,
               ChakraProtoMsg::Node& out) {
  const Node& n = w.node(id);
  out.set_id(local_id);
  out.set_name(std::string(w.label(n.label)));
  out.set_duration_micros(static_cast<std::uint64_t>(n.duration.picoseconds() / 1'000'000));
  auto* attrs = out.mutable_attr();
  *attrs->Add() = bool_attribute("is_cpu_op", false);
  *attrs->Add() = int_attribute("loom_duration_ps", n.duration.picoseconds());
  *attrs->Add() = int_attribute("loom_stream", n.stream);
  *attrs->Add() = int_attribute("loom_iteration", n.iteration);
  if (n.layer != kNoIndex) *attrs->Add() = int_attribute("loom_layer", n.layer);
  if (n.micro_batch != kNoIndex) *attrs->Add() = int_attribute("loom_micro_batch", n.micro_batch);
  if (n.dtype != DataType::kUnknown) *attrs->Add() = string_attribute("loom_dtype", std::string(to_string(n.dtype)));
  switch (n.kind) {
    case NodeKind::kCompute:
      out.set_type(ChakraProtoMsg::COMP_NODE);
      if (n.flops > 0) *attrs->Add() = int_attribute("num_ops", static_cast<std::int64_t>(n.flops));
      if (n.bytes > 0) *attrs->Add() = int_attribute("tensor_size", static_cast<std::int64_t>(n.bytes));
      *attrs->Add() = string_attribute("loom_compute_kind", std::string(to_string(n.compute_kind)));
      return;
    case NodeKind::kCollective:
      out.set_type(ChakraProtoMsg::COMM_COLL_NODE);
      *attrs->Add() = int_attribute("comm_type", comm_type(n.op, w.label(n.label)));
      *attrs->Add() = int_attribute("comm_size", static_cast<std::int64_t>(n.bytes));
      *attrs->Add() = string_attribute("pg_name", pg[n.communicator]);
      if (n.algorithm) {
        *attrs->Add() = string_attribute("loom_algorithm", std::string(collective::to_string(*n.algorithm)));
      }
      return;
    case NodeKind::kSend:
    case NodeKind::kRecv: {
      const bool send = n.kind == NodeKind::kSend;
      out.set_type(send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
      *attrs->Add() = int32_attribute("comm_src", static_cast<std::int32_t>(send ? n.rank : n.peer));
      *attrs->Add() = int32_attribute("comm_dst", static_cast<std::int32_t>(send ? n.peer : n.rank));
      *attrs->Add() = int32_attribute("comm_tag", static_cast<std::int32_t>(n.tag));
      *attrs->Add() = int_attribute("comm_size", static_cast<std::int64_t>(n.bytes));
      return;
    }
  }
}

}  // namespace

std::vector<std::string> write_chakra(const Workload& workload, const std::string& prefix) {
  const std::uint32_t ranks = workload.rank_count();
  std::vector<std::vector<NodeId>> by_rank(ranks);
  std::vector<std::uint32_t> local(workload.node_count());
  for (NodeId id = 0; id < workload.node_count(); ++id) {
    auto& list = by_rank[workload.node(id).rank];
    local[id] = static_cast<std::uint32_t>(list.size());
    list.push_back(id);
  }
  const std::vector<std::string> pg = pg_names(workload);
  const std::string groups = groups_json(workload, pg);

  std::vector<std::string> files;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    std::string out;
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version("0.0.4");
    *meta.add_attr() = string_attribute("schema", "loom");
    append_record(out, meta.SerializeAsString());

    ChakraProtoMsg::Node groups_node;
    groups_node.set_id(by_rank[r].size());
    groups_node.set_name("loom process groups");
    groups_node.set_type(ChakraProtoMsg::METADATA_NODE);
    groups_node.mutable_inputs()->set_values(groups);
    append_record(out, groups_node.SerializeAsString());

    ChakraProtoMsg::Node node;
    for (NodeId id : by_rank[r]) {
      node.Clear();
      fill_node(workload, id, local[id], pg, node);
      for (NodeId dep : workload.deps(id)) {
        if (workload.node(dep).rank != r) {
          throw UserError(fmt::format("{}: depends on a node of rank {} (rank {}); Chakra traces hold only "
                                      "dependencies within a rank",
                                      workload.label(workload.node(id).label), workload.node(dep).rank, r));
        }
        node.add_data_deps(local[dep]);
      }
      append_record(out, node.SerializeAsString());
    }
    std::string file = fmt::format("{}.{}.et", prefix, r);
    std::ofstream stream(file, std::ios::binary | std::ios::trunc);
    stream.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!stream) throw UserError(fmt::format("{}: cannot write the Chakra trace file", file));
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace loom::workload::chakra
