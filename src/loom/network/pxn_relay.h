// PXN ("PCIe x NVLink", NCCL's rail-aligned relay): a transfer between GPUs of different hosts
// whose NICs sit on different rails is carried in two legs — over the scale-up fabric to the
// local GPU whose NIC is on the destination's rail, then out of that NIC to the destination —
// so it stays on one rail of a rail-optimised fabric instead of crossing the spine.
//
// PxnRelay wraps any backend. For each transfer it decides whether to relay (both ends GPUs
// on different hosts, both NICs with a known rail, rails differ, and the source host has a GPU
// whose NIC is on the destination's rail — the lowest such rank is the relay); other transfers
// pass through untouched. A relayed transfer starts both legs at once and completes when both
// have delivered their last byte: NCCL pipelines PXN through the relay GPU's buffer chunk by
// chunk, and this models that pipeline as cut-through (the relay chunk's own delay is left
// out). Both legs carry the full bytes and keep the request's flow hash and weight.
//
// Cost: O(hosts x rails) table built once; O(1) per transfer; one pending record per relayed
// transfer in flight, recycled.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/slot_vector.h"
#include "loom/network/backend.h"
#include "loom/topology/topology.h"

namespace loom::network {

class PxnRelay final : public Backend, private CompletionHandler {
 public:
  // `inner` carries both legs; it and `topology` must outlive this object.
  PxnRelay(const topology::Topology& topology, Backend& inner);

  // The inner backend's model: its mode, capabilities and the calls behind them.
  NetworkMode mode() const override { return inner_.mode(); }
  Capabilities capabilities() const override { return inner_.capabilities(); }
  void schedule_link_change(Time when, topology::LinkId link, bool up, topology::Routing& routing) override {
    inner_.schedule_link_change(when, link, up, routing);
  }
  void schedule_link_rate(Time when, topology::LinkId link, Bandwidth rate) override {
    inner_.schedule_link_rate(when, link, rate);
  }
  void carried_bytes(std::vector<double>& out) const override { inner_.carried_bytes(out); }
  std::vector<OutputFile> write_monitors(const std::filesystem::path& dir) const override {
    return inner_.write_monitors(dir);
  }
  Time monitors_stopped_at() const override { return inner_.monitors_stopped_at(); }
  std::vector<Statistic> statistics() const override { return inner_.statistics(); }
  void run(Simulator& simulator) override { inner_.run(simulator); }
  void start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) override;
  // A relayed transfer's ideal time is the slower of its two legs alone.
  Time ideal_time(const TransferRequest& request) const override;

  // The GPU node that would relay a transfer from `src` to `dst`, or topology::kNone.
  topology::NodeId relay_for(topology::NodeId src, topology::NodeId dst) const;
  // Transfers relayed so far.
  std::uint64_t relayed() const { return relayed_; }

 private:
  struct Pending {
    CompletionHandler* handler = nullptr;
    std::uint64_t cookie = 0;
    std::uint32_t legs_left = 0;
  };
  void on_transfer_complete(std::uint64_t slot) override;
  std::uint16_t rail_of_rank(std::uint32_t rank) const;

  const topology::Topology& topology_;
  Backend& inner_;
  std::uint32_t rails_ = 0;                   // 1 + the largest rail of any NIC
  std::vector<topology::NodeId> relay_gpu_;   // host * rails_ + rail -> GPU node, or kNone
  SlotVector<Pending> pending_;
  std::uint64_t relayed_ = 0;
};

}  // namespace loom::network
