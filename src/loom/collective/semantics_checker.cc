#include "loom/collective/semantics_checker.h"

#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::collective {

namespace {

// Count per contributor (size n); a block a member does not hold is absent from its map.
using Contributors = std::vector<std::uint32_t>;

struct Holding {
  Contributors counts;
  std::uint64_t version = 0;  // bumped by every write
};

struct InFlight {
  Transfer transfer;
  Contributors snapshot;
  std::uint64_t source_version = 0;
};

// Thrown inside this file only, to stop at the first violation; check_semantics returns it.
struct Violation {
  std::string description;
};

std::string describe(const Transfer& t) {
  return fmt::format("transfer {} -> {} of block {} ({}, {} B, tag {})", t.src, t.dst, t.block,
                     t.action == DataAction::kCopy ? "copy" : "reduce", t.bytes, t.tag);
}

std::string describe(const Contributors* counts) {
  if (counts == nullptr) return "nothing";
  std::string text;
  for (std::uint32_t c = 0; c < counts->size(); ++c) {
    const std::uint32_t k = (*counts)[c];
    if (k == 0) continue;
    text += text.empty() ? "" : ", ";
    text += k == 1 ? fmt::format("{}", c) : fmt::format("{}x{}", c, k);
  }
  return "{" + text + "}";
}

Contributors only(std::uint32_t contributor, std::uint32_t n) {
  Contributors counts(n, 0);
  counts[contributor] = 1;
  return counts;
}

class Checker {
 public:
  Checker(Execution& execution, Algorithm algorithm, const CollectiveSpec& spec, std::uint64_t seed)
      : execution_(execution),
        algorithm_(algorithm),
        spec_(spec),
        n_(spec.members),
        rng_(seed, "semantics-checker"),
        held_(spec.members),
        in_flight_per_member_(spec.members, 0),
        reported_(spec.members, false) {
    const CollectiveOp op = spec.op;
    for (std::uint32_t m = 0; m < n_; ++m) {
      if (op == CollectiveOp::kAllGather) {
        held_[m][m] = Holding{only(m, n_), 1};
      } else if (op == CollectiveOp::kAllToAll) {
        for (std::uint32_t j = 0; j < n_; ++j) held_[m][m * n_ + j] = Holding{only(m, n_), 1};
      } else {
        for (std::uint32_t b = 0; b < n_; ++b) held_[m][b] = Holding{only(m, n_), 1};
      }
    }
  }

  void run() {
    Progress progress;
    execution_.start(progress);
    absorb(progress);
    while (!in_flight_.empty()) {
      const auto pick = static_cast<std::size_t>(rng_.uniform_int(0, in_flight_.size() - 1));
      std::swap(in_flight_[pick], in_flight_.back());
      const InFlight done = std::move(in_flight_.back());
      in_flight_.pop_back();
      deliver(done);
      progress.ready.clear();
      progress.finished_members.clear();
      execution_.on_done(done.transfer, progress);
      absorb(progress);
    }
    if (!execution_.finished()) {
      throw Violation{fmt::format("stalled: nothing in flight but the execution is not finished ({} of {} "
                                  "members reported finished)", reported_count_, n_)};
    }
    if (bytes_ != expected_wire_bytes(algorithm_, spec_)) {
      throw Violation{fmt::format("byte conservation: transfers carried {} B in all, expected {} B",
                                  bytes_, expected_wire_bytes(algorithm_, spec_))};
    }
    for (std::uint32_t m = 0; m < n_; ++m) check_postcondition(m);
  }

  std::uint64_t transfers() const { return transfers_; }
  Bytes bytes() const { return bytes_; }

 private:
  const Contributors* find(std::uint32_t member, std::uint32_t block) const {
    const auto it = held_[member].find(block);
    return it == held_[member].end() ? nullptr : &it->second.counts;
  }

  void absorb(const Progress& progress) {
    for (const Transfer& t : progress.ready) make_ready(t);
    for (const std::uint32_t m : progress.finished_members) report_finished(m);
    if (execution_.finished() && (!in_flight_.empty() || reported_count_ != n_)) {
      throw Violation{fmt::format("finished() is true with {} transfers in flight and {} of {} members "
                                  "reported finished", in_flight_.size(), reported_count_, n_)};
    }
  }

  void make_ready(const Transfer& t) {
    if (t.src >= n_ || t.dst >= n_ || t.src == t.dst || t.block >= block_count(spec_.op, n_)) {
      throw Violation{"malformed " + describe(t) + fmt::format(" on {} members", n_)};
    }
    if (t.bytes != block_bytes(spec_, t.block)) {
      throw Violation{fmt::format("{} carries {} B; block {} has {} B", describe(t), t.bytes, t.block,
                                  block_bytes(spec_, t.block))};
    }
    for (const std::uint32_t m : {t.src, t.dst}) {
      if (reported_[m]) {
        throw Violation{fmt::format("{} involves member {}, already reported finished", describe(t), m)};
      }
    }
    if (!seen_.emplace(t.src, t.dst, t.block, t.action).second) {
      throw Violation{describe(t) + " was made ready twice"};
    }
    if (++transfers_ > expected_transfers(algorithm_, spec_)) {
      throw Violation{fmt::format("more than the {} transfers expected; the last was {}",
                                  expected_transfers(algorithm_, spec_), describe(t))};
    }
    bytes_ += t.bytes;
    const auto source = held_[t.src].find(t.block);
    if (source == held_[t.src].end()) {
      throw Violation{fmt::format("{}: member {} does not hold block {}", describe(t), t.src, t.block)};
    }
    in_flight_.push_back(InFlight{t, source->second.counts, source->second.version});
    ++in_flight_per_member_[t.src];
    ++in_flight_per_member_[t.dst];
  }

  void deliver(const InFlight& done) {
    const Transfer& t = done.transfer;
    if (held_[t.src].at(t.block).version != done.source_version) {
      throw Violation{fmt::format("{}: the source block changed while the transfer was in flight "
                                  "(sent {}, now {})", describe(t), describe(&done.snapshot),
                                  describe(find(t.src, t.block)))};
    }
    Holding& target = held_[t.dst][t.block];
    if (t.action == DataAction::kCopy || target.counts.empty()) {
      target.counts = done.snapshot;
    } else {
      for (std::uint32_t c = 0; c < n_; ++c) target.counts[c] += done.snapshot[c];
    }
    ++target.version;
    --in_flight_per_member_[t.src];
    --in_flight_per_member_[t.dst];
  }

  void report_finished(std::uint32_t m) {
    if (m >= n_) throw Violation{fmt::format("member {} reported finished; there are {}", m, n_)};
    if (reported_[m]) throw Violation{fmt::format("member {} reported finished twice", m)};
    if (in_flight_per_member_[m] != 0) {
      throw Violation{fmt::format("member {} reported finished with {} of its transfers in flight", m,
                                  in_flight_per_member_[m])};
    }
    reported_[m] = true;
    ++reported_count_;
    check_postcondition(m);
  }

  void expect_block(std::uint32_t m, std::uint32_t block, const Contributors& expected,
                    std::string_view expected_text) const {
    const Contributors* actual = find(m, block);
    if (actual == nullptr || *actual != expected) {
      throw Violation{fmt::format("{}: member {} ends with block {} = {}; expected {}", to_string(spec_.op),
                                  m, block, describe(actual), expected_text)};
    }
  }

  void check_postcondition(std::uint32_t m) const {
    const Contributors everyone(n_, 1);
    const std::string everyone_text = fmt::format("each of members 0..{} once", n_ - 1);
    switch (spec_.op) {
      case CollectiveOp::kAllReduce:
        for (std::uint32_t b = 0; b < n_; ++b) expect_block(m, b, everyone, everyone_text);
        break;
      case CollectiveOp::kReduceScatter:
        expect_block(m, m, everyone, everyone_text);
        break;
      case CollectiveOp::kAllGather:
        for (std::uint32_t b = 0; b < n_; ++b) expect_block(m, b, only(b, n_), fmt::format("{{{}}}", b));
        break;
      case CollectiveOp::kAllToAll:
        for (std::uint32_t i = 0; i < n_; ++i) {
          expect_block(m, i * n_ + m, only(i, n_), fmt::format("{{{}}}", i));
        }
        break;
    }
  }

  Execution& execution_;
  Algorithm algorithm_;
  CollectiveSpec spec_;
  std::uint32_t n_;
  RandomStream rng_;
  std::vector<std::unordered_map<std::uint32_t, Holding>> held_;  // per member: block -> holding
  std::vector<InFlight> in_flight_;
  std::vector<std::uint32_t> in_flight_per_member_;  // sends plus receives in flight
  std::vector<bool> reported_;
  std::uint32_t reported_count_ = 0;
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, DataAction>> seen_;
  std::uint64_t transfers_ = 0;
  Bytes bytes_ = 0;
};

// Both algorithms move the same volume: all-reduce sends each block 2(n-1) times, the others
// n-1 times (ring: around the ring; direct: to each peer).
std::uint64_t rounds(const CollectiveSpec& spec) {
  const std::uint64_t per_block = spec.members - 1;
  return spec.op == CollectiveOp::kAllReduce ? 2 * per_block : per_block;
}

}  // namespace

std::uint64_t expected_transfers(Algorithm algorithm, const CollectiveSpec& spec) {
  switch (algorithm) {
    case Algorithm::kRing:
    case Algorithm::kDirect:
      return rounds(spec) * spec.members;
  }
  LOOM_ASSERT(false, "unknown Algorithm value");
  return 0;
}

Bytes expected_wire_bytes(Algorithm algorithm, const CollectiveSpec& spec) {
  switch (algorithm) {
    case Algorithm::kRing:
    case Algorithm::kDirect:
      return rounds(spec) * spec.size;
  }
  LOOM_ASSERT(false, "unknown Algorithm value");
  return 0;
}

SemanticsCheckResult check_semantics(Execution& execution, Algorithm algorithm,
                                     const CollectiveSpec& spec, std::uint64_t seed) {
  validate(spec);
  Checker checker(execution, algorithm, spec, seed);
  SemanticsCheckResult result;
  try {
    checker.run();
  } catch (const Violation& violation) {
    result.ok = false;
    result.description = violation.description;
  }
  result.transfers = checker.transfers();
  result.bytes = checker.bytes();
  return result;
}

SemanticsCheckResult check_semantics(Algorithm algorithm, const CollectiveSpec& spec,
                                     std::uint64_t seed) {
  validate(spec);
  const std::unique_ptr<Execution> execution = make_execution(algorithm, spec);
  return check_semantics(*execution, algorithm, spec, seed);
}

}  // namespace loom::collective
