// One packet simulation partitioned over ranks (processes, `mpirun -np K`), with the windowed
// executor's conservative protocol: every rank builds the whole fabric and runs the drivers'
// events (global steps) itself, but runs only the LPs placed on it. Between windows (and after
// each global step) the ranks exchange, rank pair by rank pair, the events their LPs held for
// LPs of the other (packets serialised with the event's time and order key, PFC frames) and
// the packets released away from their senders' rank; then all of them agree on the QP slots
// freed and QPs ended, on the next window's start (the earliest pending event over all ranks)
// and on the driver's reaction bound, in one all-gather: the window then runs to
// start + lookahead or right after the bound, as on one process. In a run whose driver reacts
// to completions, the window's end is settled likewise (one exchange, one all-gather that
// also carries each rank's completions): four collectives per window.
//
// Placement: LPs on ranks by longest processing time first over their node counts
// (lp_placement.h), fixed for the run (moving an LP would move its state between processes).
// Exactness is the executor's: each LP sees its events in the serial order, and the logs are
// merged by their stamps, so the outputs gathered on rank 0 equal a run on one process, byte
// for byte, whatever the number of ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/core/time.h"
#include "loom/network/packet/parallel/lp_partition.h"
#include "loom/network/packet/parallel/rank_exchange.h"
#include "loom/network/packet/parallel/reaction_bound.h"
#include "loom/network/packet/parallel/windowed_executor.h"

namespace loom::network::packet {
class Fabric;
}

namespace loom::network::packet::parallel {

struct RankStats {
  std::uint32_t ranks = 1;
  std::uint64_t rounds = 0;          // exchanges (one per window and global step)
  // Collectives (exchanges and all-gathers; each two MPI calls in mpi_rank_exchange.cc) while
  // the run's events ran (every rank makes the same).
  std::uint64_t collectives = 0;
  std::uint64_t bytes_sent = 0;      // to other ranks, summed over ranks (after gather_stats)
  std::uint64_t events_sent = 0;     // events handed to another rank's LP, likewise
  // Wall time in the exchanges (packing, MPI calls and waiting for the other ranks): the
  // busiest rank's and the least busy rank's (after gather_stats).
  double exchange_seconds_max = 0, exchange_seconds_min = 0;
};

// What the ranks agree on before each window: where it starts (the earliest pending event) and
// when its events could first make the driver react (the window ends right after).
struct NextWindow {
  Time next = Time::max();
  ReactionBound bound;
};

// UserError when `ranks` cannot share `partition`'s LPs (more ranks than LPs).
void check_rank_count(std::uint32_t ranks, const LpPartition& partition);

class RankSync {
 public:
  // Places the partition's LPs on the exchange's ranks. UserError when there are more ranks
  // than LPs (a rank would have nothing to run).
  RankSync(RankExchange& exchange, const LpPartition& partition);

  std::uint32_t rank() const { return exchange_.rank(); }
  std::uint32_t ranks() const { return exchange_.size(); }
  const std::vector<std::uint32_t>& rank_of_lp() const { return rank_of_lp_; }
  bool runs(LpId lp) const { return rank_of_lp_[lp] == rank(); }
  RankExchange& exchange() { return exchange_; }

  // Collective, between windows: sends the events the fabric holds for other ranks' LPs and
  // takes those held for this rank's.
  void exchange_held(Fabric& fabric);
  // Collective, one all-gather: the earliest of every rank's `local.next` (this rank's next LP
  // event or held event) and every rank's reaction bound combined; applies every rank's freed
  // QP slots and ended QPs to the fabric first.
  NextWindow agree_next(Fabric& fabric, const NextWindow& local);

  // Collective, between windows of a run whose driver reacts to completions: hands the held
  // events over and applies every rank's freed QP slots and ended QPs, as a window's end does on
  // one process, so that what the driver starts next takes the same slots everywhere. Carries
  // `news` (the listener's news of the window: its completions) in the same all-gather and
  // returns every rank's, by rank.
  std::vector<std::string> settle_window(Fabric& fabric, const std::string& news);

  // Collective: this rank's counts summed over ranks.
  RankStats gather_stats();
  // Collective: the events handed over and per-LP events that each rank's LPs counted, summed.
  void sum_window_stats(WindowStats& stats);

 private:
  // All-gathers `mine` followed by the fabric's QP notes (ByteWriter::put_text): every rank's
  // message, by rank. The caller applies each rank's notes as it reads them.
  std::vector<std::string> gather_notes(Fabric& fabric, ByteWriter& mine);

  RankExchange& exchange_;
  std::vector<std::uint32_t> rank_of_lp_;
  RankStats stats_;
  double exchange_seconds_ = 0;  // this rank's
};

}  // namespace loom::network::packet::parallel
