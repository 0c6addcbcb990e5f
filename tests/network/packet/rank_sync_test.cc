// One packet simulation split over ranks (parallel/rank_sync.h) must give the serial run's
// outputs byte for byte: completions in completion order, every counter, the capped PFC log
// and the event count, on 1, 2 and 4 ranks, for an incast with PFC storms and link errors and
// for a cable going down and up (QPs re-routed on every rank). The ranks run here as threads of
// one process, each with a fabric of its own, joined by an in-memory RankExchange (the same
// protocol as MPI's, mpi_rank_exchange.cc; tests/apps/hpcc_mpi_test.cc runs it under mpirun).
#include "loom/network/packet/parallel/rank_sync.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <barrier>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "loom/network/packet/packet_backend.h"
#include "loom/network/packet/parallel/event_stamp.h"
#include "loom/network/packet/parallel/windowed_executor.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/routing.h"
#include "network/packet/storm_runs.h"
#include "user_error.h"

namespace loom::network::packet::parallel {
namespace {

// Ranks as threads: each collective writes this rank's messages, meets the others, reads theirs.
class ThreadRanks {
 public:
  explicit ThreadRanks(std::uint32_t ranks)
      : size_(ranks), boxes_(ranks, std::vector<std::string>(ranks)), sync_(static_cast<std::ptrdiff_t>(ranks)) {}

  class Exchange final : public RankExchange {
   public:
    Exchange(ThreadRanks& all, std::uint32_t rank) : all_(all), rank_(rank) {}
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return all_.size_; }
    std::vector<std::string> exchange(const std::vector<std::string>& outgoing) override {
      for (std::uint32_t r = 0; r < size(); ++r) all_.boxes_[rank_][r] = r == rank_ ? std::string() : outgoing[r];
      all_.sync_.arrive_and_wait();
      std::vector<std::string> incoming;
      for (std::uint32_t r = 0; r < size(); ++r) incoming.push_back(all_.boxes_[r][rank_]);
      all_.sync_.arrive_and_wait();
      return incoming;
    }
    std::vector<std::string> all_gather(const std::string& text) override {
      all_.boxes_[rank_][0] = text;
      all_.sync_.arrive_and_wait();
      std::vector<std::string> texts;
      for (std::uint32_t r = 0; r < size(); ++r) texts.push_back(all_.boxes_[r][0]);
      all_.sync_.arrive_and_wait();
      return texts;
    }

   private:
    ThreadRanks& all_;
    std::uint32_t rank_;
  };

 private:
  std::uint32_t size_;
  std::vector<std::vector<std::string>> boxes_;  // [from][to]
  std::barrier<> sync_;
};

// 16 hosts of one GPU and one NIC (PCIe 250 ns), 4 per leaf, 2 spines, 100 Gb/s cables of
// 500 ns: at 1 ps every node is an LP (lookahead 250 ns), at 400 ns each host is one.
topology::Topology leaf_spine() {
  topology::LeafSpineParams p;
  p.hosts = 16;
  p.host.gpus_per_host = 1;
  p.host.nic_bandwidth = Bandwidth::gbps(100);
  p.hosts_per_leaf = 4;
  p.spines = 2;
  p.links_per_pair = 1;
  p.spine_link_bandwidth = Bandwidth::gbps(100);
  return topology::make_leaf_spine(p);
}

struct Transfer {
  std::uint32_t src, dst;  // GPUs
  Bytes bytes;
  Time start;
};

struct Completion {
  std::uint64_t transfer;
  Time end;
  bool operator==(const Completion&) const = default;
};

struct Result {
  std::vector<Completion> completions;  // in completion order
  std::vector<std::uint64_t> counters;
  std::vector<std::tuple<Time, topology::LinkId, bool, std::uint8_t>> pfc;
  std::uint64_t pfc_dropped = 0, events = 0, windows = 0, rounds = 0, sent = 0;
  bool operator==(const Result& o) const {
    return std::tie(completions, counters, pfc, pfc_dropped, events) ==
           std::tie(o.completions, o.counters, o.pfc, o.pfc_dropped, o.events);
  }
};

// One rank's run (or the serial run: no exchange, zeta zero), its results gathered on every rank.
class RankRun final : public FabricListener {
 public:
  RankRun(const topology::Topology& topo, const PacketParams& params)
      : topo_(topo), routing_(topo), backend_(simulator_, topo, routing_, params), fabric_(backend_.fabric()) {
    fabric_.record_pfc_events(true, 30);  // the cap applies to the merged log
  }

  Result go(const std::vector<Transfer>& transfers, topology::LinkId cable, Time zeta, RankExchange* ranks) {
    transfers_ = &transfers;
    std::optional<LpPartition> lps;
    std::optional<RankSync> sync;
    std::optional<WindowedExecutor> executor;
    if (zeta > Time::zero()) {
      lps = partition_by_delay(topo_, zeta);
      if (ranks != nullptr) sync.emplace(*ranks, *lps);
      executor.emplace(simulator_, fabric_, *lps, 1, nullptr, sync ? &*sync : nullptr);
    }
    for (std::size_t i = 0; i < transfers.size(); ++i) {
      simulator_.schedule_at<&RankRun::start>(transfers[i].start, this, i);
    }
    backend_.schedule_link_change(Time::us(9), cable, false, routing_);
    backend_.schedule_link_change(Time::us(70), cable, true, routing_);
    Result out;
    if (executor) {
      executor->run_until(Time::max());
      out.events = executor->events_processed();
      out.windows = executor->stats().windows;
    } else {
      simulator_.run();
      out.events = simulator_.events_processed();
    }
    if (sync) gather(*ranks, *sync, out);
    put_in_serial_order(completions_, stamps_);
    out.completions = completions_;
    const FabricCounters c = fabric_.counters();
    out.counters = {c.data_packets, c.data_packet_hops, c.control_packets, c.retransmitted_bytes, c.delivered_bytes,
                    c.drops, c.ecn_marks, c.cnps, c.nacks, c.timeouts, c.pauses, c.resumes};
    for (const PfcEvent& e : fabric_.pfc_events()) out.pfc.emplace_back(e.time, e.link, e.pause, e.priority);
    out.pfc_dropped = fabric_.pfc_events_dropped();
    return out;
  }

 private:
  void gather(RankExchange& ranks, RankSync& sync, Result& out) {
    fabric_.gather_from_ranks(ranks);
    ByteWriter mine;
    mine.put_all(completions_);
    mine.put_all(stamps_);
    mine.put(out.events - simulator_.events_processed());  // the drivers' events ran on every rank
    completions_.clear();
    stamps_.clear();
    out.events = simulator_.events_processed();
    for (const std::string& message : ranks.all_gather(mine.bytes())) {
      ByteReader in(message);
      for (const Completion& c : in.get_all<Completion>()) completions_.push_back(c);
      for (const EventStamp& s : in.get_all<EventStamp>()) stamps_.push_back(s);
      out.events += in.get<std::uint64_t>();
    }
    const RankStats stats = sync.gather_stats();
    out.rounds = stats.rounds;
    out.sent = stats.events_sent;
  }

  void start(std::uint64_t index) {
    const Transfer& t = (*transfers_)[index];
    route_and_start(backend_, routing_, t.src, t.dst, t.bytes, index, *this);
  }
  void on_qp_delivered(QpId, std::uint64_t) override {}
  void on_qp_acked(QpId, std::uint64_t tag) override {
    const Simulator& sender = fabric_.simulator_at(topo_.gpu_node((*transfers_)[tag].src));
    completions_.push_back({tag, sender.now()});
    stamps_.push_back(stamp_of(sender));
  }

  const topology::Topology& topo_;
  Simulator simulator_;
  topology::Routing routing_;
  PacketBackend backend_;
  Fabric& fabric_;
  const std::vector<Transfer>* transfers_ = nullptr;
  std::vector<Completion> completions_;
  std::vector<EventStamp> stamps_;
};

// Every rank's result (they must agree) after a run over `ranks` threads.
std::vector<Result> run_on_ranks(const topology::Topology& topo, const PacketParams& params,
                                 const std::vector<Transfer>& transfers, topology::LinkId cable, Time zeta,
                                 std::uint32_t ranks) {
  ThreadRanks all(ranks);
  std::vector<Result> results(ranks);
  {
    std::vector<std::jthread> threads;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      threads.emplace_back([&, r] {
        ThreadRanks::Exchange exchange(all, r);
        RankRun run(topo, params);
        results[r] = run.go(transfers, cable, zeta, &exchange);
      });
    }
  }
  return results;
}

// 11 GPUs of three leaves into GPU 0 at once, and transfers between the other leaves,
// staggered; the cable leaf.0 - spine.0 goes down during the incast and back 61 us later.
std::vector<Transfer> incast_and_crossing() {
  std::vector<Transfer> transfers;
  for (std::uint32_t s = 5; s < 16; ++s) transfers.push_back({s, 0, 100'000 + 3'000 * Bytes{s}, Time::us(1)});
  for (std::uint32_t i = 0; i < 8; ++i) {
    transfers.push_back({1 + i % 3, 4 + (i * 7) % 12, 250'000, Time::ns(900 * i + 13)});
  }
  return transfers;
}

topology::LinkId cable_between(const topology::Topology& topo, const std::string& a, const std::string& b) {
  for (topology::LinkId l = 0; l < topo.link_count(); ++l) {
    if (topo.node(topo.link(l).src).name == a && topo.node(topo.link(l).dst).name == b) return l;
  }
  ADD_FAILURE() << "no cable " << a << " - " << b;
  return 0;
}

TEST(RankSync, IncastWithPfcLinkErrorsAndACableDownEqualsSerialOnOneTwoAndFourRanks) {
  const topology::Topology topo = leaf_spine();
  const std::vector<Transfer> transfers = incast_and_crossing();
  const topology::LinkId cable = cable_between(topo, "leaf.0", "spine.0");
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc}) {
    const PacketParams p = lossy_storm(cc, 350'000, 0.0005);
    RankRun serial_run(topo, p);
    const Result serial = serial_run.go(transfers, cable, Time::zero(), nullptr);
    ASSERT_EQ(serial.completions.size(), transfers.size()) << to_string(cc);
    EXPECT_GT(serial.counters[10], 0u) << to_string(cc) << ": pauses";
    EXPECT_GT(serial.counters[5], 0u) << to_string(cc) << ": drops";
    EXPECT_GT(serial.pfc_dropped, 0u) << to_string(cc) << ": the PFC log's cap";
    for (const Time zeta : {Time::ps(1), Time::ns(400)}) {
      for (const std::uint32_t ranks : {1u, 2u, 4u}) {
        const std::string what = fmt::format("{} zeta {} ranks {}", to_string(cc), to_string(zeta), ranks);
        const std::vector<Result> results = run_on_ranks(topo, p, transfers, cable, zeta, ranks);
        for (std::uint32_t r = 0; r < ranks; ++r) {
          EXPECT_TRUE(results[r] == serial) << what << ", rank " << r;
          EXPECT_GT(results[r].windows, 10u) << what;
          EXPECT_EQ(results[r].rounds, results[0].rounds) << what;
        }
        EXPECT_EQ(results[0].sent > 0, ranks > 1) << what << ": events between ranks";
      }
    }
  }
}

TEST(RankSync, RefusesMoreRanksThanLps) {
  const topology::Topology topo = leaf_spine();
  const LpPartition hosts = partition_by_delay(topo, Time::ns(400));  // 16 hosts, 4 leaves, 2 spines
  ASSERT_EQ(hosts.lp_count, 22u);
  EXPECT_EQ(loom::testing::user_error_of([&] { check_rank_count(22, hosts); }), "no error");
  EXPECT_EQ(loom::testing::user_error_of([&] { check_rank_count(23, hosts); }),
            "a packet simulation over 23 MPI ranks: the fabric has 22 LPs (delay < 400ns), so some rank would run "
            "none; expected at most 22 ranks, or a delay threshold that makes more LPs");
}

}  // namespace
}  // namespace loom::network::packet::parallel
