// The runtime's private state records, shared by runtime.cc and runtime_collectives.cc.
// Not part of the system library's interface.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "loom/system/runtime.h"

namespace loom::system {

using workload::NodeId;
inline constexpr std::uint32_t kNoInstance = 0xffffffffu;
inline constexpr std::uint64_t kNotLogged = ~std::uint64_t{0};  // a transfer past the log's limit

struct Runtime::Stream {
  std::vector<NodeId> queue;  // ready nodes in the order they became ready
  std::size_t head = 0;
  bool busy = false;
  NodeId last = kNoNode;      // the node that ran last
  std::uint32_t rank = 0;     // whose stream it is
};

struct Runtime::PointToPoint {
  std::deque<NodeId> sends;   // arrived, waiting for a receive
  std::deque<NodeId> recvs;   // arrived, waiting for a send
};

struct Runtime::InFlight {
  std::uint32_t instance = kNoInstance;  // a collective's transfer, or
  NodeId send = kNoNode;                 // a point-to-point pair
  NodeId recv = kNoNode;
  collective::Transfer transfer;
  network::TransferRequest request;     // what goes to the backend
  std::uint64_t log_index = 0;  // kNotLogged past the log's limit
};

struct Runtime::Instance {
  workload::CommunicatorId communicator = 0;
  std::uint32_t sequence = 0;
  std::vector<NodeId> member_nodes;  // per member index; kNoNode until that member arrives
  std::uint32_t arrived = 0;         // counts up to the member count, then down as members finish
  bool tuned = false;                // the algorithm and its settings come from the tuner
  std::unique_ptr<collective::Execution> execution;
  CollectiveRecord record;
};

}  // namespace loom::system
