// The network backend interface: the system runtime hands it point-to-point transfers between
// topology nodes and is told when each has fully arrived.
//
// A backend owns the model of the fabric (analytical, flow or packet) and schedules completions
// on the shared Simulator; it never calls back synchronously from start(). Transfers are
// independent: a backend does not know about collectives or workloads. Completion handlers are
// plain interfaces (one virtual call per transfer, none per packet).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/network/network_mode.h"
#include "loom/topology/routing.h"
#include "loom/topology/topology.h"

namespace loom {
class Simulator;
}

namespace loom::network {

struct TransferRequest {
  topology::NodeId src = 0;
  topology::NodeId dst = 0;
  Bytes bytes = 0;
  std::uint64_t flow_hash = 0;  // chooses among equal-cost paths (ECMP); stable per flow
  // The operation the transfer belongs to (a collective instance), numbered from 1 below 2^32;
  // 0 = none. The analytical backend shares a link equally among the transfers of one group
  // sent over it at once (analytical.h); backends that model contention share links between
  // all transfers physically and ignore it.
  std::uint64_t share_group = 0;
  // Relative share of contended bandwidth (> 0): the flow backend's weighted max-min gives a
  // transfer of weight 2 twice the rate of a weight-1 transfer on a shared bottleneck (stream
  // priorities). The packet backend rounds it to a whole weighted-round-robin weight (1..1024
  // packets per turn) at the sending NIC; the analytical backend has no contention and ignores it.
  double weight = 1.0;
  // Traffic class (switch priority queue) of the transfer's packets in the packet backend: 0
  // takes the backend's data class (network.packet.data_priority), 1..switch queues - 1 name
  // one. The flow and analytical backends have no priority queues and ignore it.
  std::uint8_t traffic_class = 0;
};

// A file a backend wrote (its monitors'): the rows it holds and the rows a cap left out.
struct OutputFile {
  std::filesystem::path path;
  std::uint64_t rows = 0;
  std::uint64_t dropped = 0;
};

class CompletionHandler {
 public:
  // The transfer started with `cookie` has delivered its last byte at the simulator's now().
  virtual void on_transfer_complete(std::uint64_t cookie) = 0;

 protected:
  ~CompletionHandler() = default;
};

// One network model. Every backend carries transfers (start, ideal_time); what else it can do
// is announced by capabilities(), and the calls behind a capability it lacks throw UserError
// naming the mode (a driver checks the capability first, or lets that error reach the user).
class Backend {
 public:
  virtual ~Backend() = default;
  virtual NetworkMode mode() const = 0;
  std::string_view name() const { return to_string(mode()); }
  virtual Capabilities capabilities() const = 0;
  // Starts `request` at the simulator's now(); `handler.on_transfer_complete(cookie)` runs as
  // an event when the last byte arrives. src != dst; bytes may be zero (latency only).
  virtual void start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) = 0;
  // How long `request` would take alone on an idle fabric (the "standalone" or ideal FCT that
  // slowdowns are measured against). No side effects.
  virtual Time ideal_time(const TransferRequest& request) const = 0;

  // Capabilities::link_changes. At `when` (>= now) takes the cable of `link` down (up = false)
  // or brings it back, updating `routing` (the Routing the backend was built with, given
  // mutably); what happens to transfers crossing it is the backend's model (its header says).
  // A transfer left without a route makes Simulator::run() throw UserError.
  virtual void schedule_link_change(Time when, topology::LinkId link, bool up, topology::Routing& routing);
  // Capabilities::link_rate_changes. At `when` (>= now) the directed link `link` starts to carry
  // `rate` (> 0) instead of the bandwidth it had; the topology keeps the nominal one. Which
  // transfers see the new rate (those under way, or only later ones) is the backend's model
  // (its header says). Changes due at one instant apply in the order they were scheduled.
  virtual void schedule_link_rate(Time when, topology::LinkId link, Bandwidth rate);
  // Capabilities::link_loads. Wire bytes each link has carried up to now, indexed by LinkId.
  virtual void carried_bytes(std::vector<double>& out) const;
  // Capabilities::monitors. Writes the monitors' CSV files into `dir` and returns them (none
  // when no monitor was configured).
  virtual std::vector<OutputFile> write_monitors(const std::filesystem::path& dir) const;
  // Capabilities::monitors. When the monitors stopped sampling because every file they write was
  // full (Time::max(): they did not).
  virtual Time monitors_stopped_at() const { return Time::max(); }
  // Counts about the run so far (solver work, packets, marks), for the run record.
  virtual std::vector<Statistic> statistics() const { return {}; }
  // The run is over: persists what outlives it (packet fast-forward's memo). Throws UserError.
  virtual void finish() {}
  // Runs `simulator` (the one the backend was built with) until no event remains or it is
  // stopped, as Simulator::run(). A backend whose model runs on queues of its own (packet mode
  // over logical processes, packet_backend.h) runs those along with it.
  virtual void run(Simulator& simulator);
};

}  // namespace loom::network
