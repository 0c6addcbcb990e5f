// The runtime's private state records, shared by runtime.cc and runtime_collectives.cc.
// Not part of the system library's interface.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "loom/system/collective_replay.h"
#include "loom/system/runtime.h"

namespace loom::system {

using workload::NodeId;
inline constexpr std::uint32_t kNoInstance = 0xffffffffu;
inline constexpr std::uint64_t kNotLogged = ~std::uint64_t{0};  // a transfer past the log's limit

// A 64-bit finaliser (MurmurHash3's): flow hashes and the closed form's table.
inline std::uint64_t mix_bits(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

struct Runtime::Stream {
  std::vector<NodeId> queue;  // ready nodes in the order they became ready
  std::size_t head = 0;
  bool busy = false;
  NodeId last = kNoNode;      // the node that ran last
  std::uint32_t rank = 0;     // whose stream it is
};

struct Runtime::PointToPoint {
  std::deque<NodeId> sends;   // arrived (eager: and issued), waiting for a receive
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

// Closed-form timing (runtime_closed_form.cc): the replay, and the operations timed so far by
// what decides their settings and times when their routes do not depend on the flow hash.
struct Runtime::ClosedForm {
  struct Key {
    workload::CommunicatorId communicator;
    collective::Algorithm algorithm;  // as the workload asks, before tuning
    bool tuned;
    collective::CollectiveOp op;
    Bytes bytes;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  // What the operation ran as (after tuning) and its timing.
  struct Known {
    collective::Algorithm algorithm;
    collective::Protocol protocol;
    std::uint32_t channels;
    std::uint32_t chunks;
    std::shared_ptr<const OperationTiming> timing;
    bool settles(const CollectiveRecord& r) const {
      return algorithm == r.algorithm && protocol == r.protocol && channels == r.channels && chunks == r.chunks;
    }
  };
  // What decides an operation's settings (the tuner's choice, if tuned) and, with routes that
  // do not depend on the flow hash, its times.
  static Key key_of(const Instance& instance, collective::Algorithm default_algorithm);
  ClosedForm(const topology::Topology& topology, const network::AnalyticalBackend& run_backend)
      : analytical(&run_backend), replay(topology, run_backend.routing()) {}
  ClosedForm(const topology::Topology& topology, network::flow::FlowBackend& run_backend)
      : flow(&run_backend), replay(topology, run_backend.routing(), run_backend.params()) {}
  bool links_change() const { return analytical ? analytical->links_change() : flow->links_change(); }

  const network::AnalyticalBackend* analytical = nullptr;  // the run's backend: one of these
  network::flow::FlowBackend* flow = nullptr;
  CollectiveReplay replay;
  std::unordered_map<Key, Known, KeyHash> known;
  // Operations whose routes depend on the flow hash, replayed before the run (class
  // refinement), by (communicator << 32 | sequence): the run takes each once instead of
  // replaying it again. Equal timings share one copy (`interned`, emptied once the run starts).
  static std::uint64_t sequence_key(workload::CommunicatorId communicator, std::uint32_t sequence) {
    return std::uint64_t{communicator} << 32 | sequence;
  }
  std::optional<Known> take_replayed(workload::CommunicatorId communicator, std::uint32_t sequence);
  void keep_replayed(workload::CommunicatorId communicator, std::uint32_t sequence, Known known);
  std::unordered_map<std::uint64_t, Known> replayed;
  // Skipped twins found to end as the operation standing for them (runtime_twins.cc), by the
  // standing operation's key: its hash-free timing, and per twin (twins_->stands_for order)
  // the twin's (null until checked). A later operation with that key and timing needs no
  // lookup or comparison per twin: both timings are the same as then.
  struct TwinChecks {
    std::shared_ptr<const OperationTiming> standing;
    std::vector<std::shared_ptr<const OperationTiming>> twins;
  };
  std::unordered_map<Key, TwinChecks, KeyHash> twin_checks;
  // Operations of skipped communicators that ran after all (flow mode, Runtime::run_twin), by
  // sequence_key until the operation standing for them ends: it writes no record for them.
  std::unordered_set<std::uint64_t> twins_ran;
  std::unordered_map<std::uint64_t, std::vector<std::shared_ptr<const OperationTiming>>> interned;
};

struct Runtime::Instance {
  workload::CommunicatorId communicator = 0;
  std::uint32_t sequence = 0;
  std::uint64_t created = 0;         // instances created before this one
  std::vector<NodeId> member_nodes;  // per member index; kNoNode until that member arrives
  std::uint32_t arrived = 0;         // counts up to the member count, then down as members finish
  bool tuned = false;                // the algorithm and its settings come from the tuner
  std::unique_ptr<collective::Execution> execution;
  // Timed in closed form (runtime_closed_form.cc): the members' ends, the next to come.
  std::shared_ptr<const OperationTiming> timing;
  std::uint32_t next_end = 0;
  // The member indices of the first and the last arrival (skipped twins' labels and rendezvous).
  std::uint32_t first_member = 0;
  std::uint32_t last_member = 0;
  CollectiveRecord record;
};

}  // namespace loom::system
