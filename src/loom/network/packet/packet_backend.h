// Packet-level backend: each transfer becomes nic.queue_pairs RoCEv2 queue pairs on a Fabric
// (see fabric.h for the model), and completes when the receiver holds its last byte.
//
// Queue pairs. Transfer bytes are split evenly (the first bytes % n QPs carry one more); QP i
// uses flow hash h_i = request.flow_hash + i * 0x9e3779b97f4a7c15 (its "source port"), so
// QP 0 takes the analytical backend's route and the others spread over ECMP paths. ACKs use
// Routing::route(dst, src, h_i). A transfer of zero bytes completes after the path latency.
//
// ideal_time: the transfer alone at line rate with store-and-forward of every packet, per
// Fabric::ideal_one_way over the route of QP 0 (one QP), so a lone transfer on an idle fabric
// finishes at its ideal time up to pacing round-off (< 1 ps per packet).
//
// Cost: per transfer O(QPs x path length) plus the fabric's per-packet work; completions are
// simulator events (never synchronous from start()).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/backend.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/packet_params.h"
#include "loom/topology/routing.h"

namespace loom::network::packet {

class PacketBackend final : public Backend, private FabricListener {
 public:
  PacketBackend(Simulator& simulator, const topology::Topology& topology,
                const topology::Routing& routing, const PacketParams& params);

  std::string_view name() const override { return "packet"; }
  void start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) override;
  Time ideal_time(const TransferRequest& request) const override;

  // At `when` (>= now) takes the cable of `link` down (up = false) or brings it back: updates
  // `routing` (the Routing this backend was built with, given mutably) and the fabric, and
  // moves every running QP whose path crosses a down cable onto a new route with its own flow
  // hash (packets in flight on the old path are lost and resent by go-back-N). A QP left
  // without a route makes the change throw UserError from Simulator::run().
  void schedule_link_change(Time when, topology::LinkId link, bool up, topology::Routing& routing);

  Fabric& fabric() { return fabric_; }
  const Fabric& fabric() const { return fabric_; }
  // Transfers started and not yet complete.
  std::size_t active_transfers() const { return transfers_.size() - free_.size(); }

 private:
  struct Transfer {
    CompletionHandler* handler = nullptr;
    std::uint64_t cookie = 0;
    std::uint32_t pending = 0;  // QPs whose bytes have not all arrived
  };

  struct LinkChange {
    topology::LinkId link = 0;
    bool up = false;
  };

  void on_qp_delivered(QpId qp, std::uint64_t tag) override;
  void apply_link_change(std::uint64_t index);
  void on_qp_acked(QpId qp, std::uint64_t tag) override;

  Simulator& simulator_;
  const topology::Routing& routing_;
  std::uint32_t queue_pairs_;
  Fabric fabric_;
  std::vector<Transfer> transfers_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint64_t> qp_hash_;  // by QP id: the flow hash it was routed with
  std::vector<LinkChange> link_changes_;
  topology::Routing* mutable_routing_ = nullptr;
  mutable std::vector<topology::LinkId> forward_, reverse_;  // scratch
};

}  // namespace loom::network::packet
