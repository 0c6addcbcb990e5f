// Concise hand-built DAGs for runtime and metrics tests.
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::system::testing {

class DagBuilder {
 public:
  explicit DagBuilder(std::uint32_t ranks, std::string_view label = "test")
      : workload_(ranks), label_(workload_.intern_label(label)) {}

  workload::Workload& workload() { return workload_; }

  workload::CommunicatorId communicator(std::vector<std::uint32_t> ranks,
                                        workload::CommunicatorKind kind = workload::CommunicatorKind::kWorld,
                                        std::string name = "") {
    // fmt, not "c" + std::to_string(...): GCC 12 warns falsely (-Wrestrict) on that inlined.
    if (name.empty()) name = fmt::format("c{}", workload_.communicator_count());
    return workload_.add_communicator({name, name, std::move(ranks), kind});
  }
  workload::NodeId compute(std::uint32_t rank, Time duration, std::initializer_list<workload::NodeId> deps = {},
                           std::uint32_t iteration = 0) {
    workload::Node n;
    n.rank = rank;
    n.duration = duration;
    n.iteration = iteration;
    return add(n, deps);
  }
  workload::NodeId collective(std::uint32_t rank, workload::CommunicatorId comm, Bytes bytes,
                              std::initializer_list<workload::NodeId> deps = {}, std::uint8_t stream = 0,
                              collective::CollectiveOp op = collective::CollectiveOp::kAllReduce) {
    workload::Node n;
    n.kind = workload::NodeKind::kCollective;
    n.op = op;
    n.rank = rank;
    n.communicator = comm;
    n.bytes = bytes;
    n.stream = stream;
    return add(n, deps);
  }
  workload::NodeId send(std::uint32_t rank, std::uint32_t peer, Bytes bytes,
                        std::initializer_list<workload::NodeId> deps = {}, std::uint32_t tag = 0,
                        std::uint8_t stream = 0) {
    return p2p(workload::NodeKind::kSend, rank, peer, bytes, deps, tag, stream);
  }
  workload::NodeId recv(std::uint32_t rank, std::uint32_t peer, Bytes bytes,
                        std::initializer_list<workload::NodeId> deps = {}, std::uint32_t tag = 0,
                        std::uint8_t stream = 0) {
    return p2p(workload::NodeKind::kRecv, rank, peer, bytes, deps, tag, stream);
  }
  // A send of `bytes` from `src` to `dst` and its matching receive, both on `stream` with tag
  // `stream`, depending on nothing. Returns the send.
  workload::NodeId transfer(std::uint32_t src, std::uint32_t dst, Bytes bytes, std::uint8_t stream) {
    const workload::NodeId sent = send(src, dst, bytes, {}, stream, stream);
    recv(dst, src, bytes, {}, stream, stream);
    return sent;
  }
  workload::NodeId add(workload::Node n, std::initializer_list<workload::NodeId> deps) {
    n.label = label_;
    const std::vector<workload::NodeId> d(deps);
    return workload_.add_node(n, d);
  }

 private:
  workload::NodeId p2p(workload::NodeKind kind, std::uint32_t rank, std::uint32_t peer, Bytes bytes,
                       std::initializer_list<workload::NodeId> deps, std::uint32_t tag, std::uint8_t stream) {
    workload::Node n;
    n.kind = kind;
    n.stream = stream;
    n.rank = rank;
    n.peer = peer;
    n.bytes = bytes;
    n.tag = tag;
    return add(n, deps);
  }

  workload::Workload workload_;
  workload::LabelId label_;
};

}  // namespace loom::system::testing
