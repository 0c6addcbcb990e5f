#include "loom/collective/semantics_checker.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "loom/collective/block_layout.h"
#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::collective {

namespace {

// Count per contributor (size n); a unit a member does not hold is absent from its map.
using Contributors = std::vector<std::uint32_t>;

struct Holding {
  Contributors counts;
  std::uint64_t version = 0;  // bumped by every write
};

struct InFlight {
  Transfer transfer;
  std::vector<Contributors> snapshot;  // per block of the transfer
  std::vector<std::uint64_t> source_versions;
};

// What makes two transfers the same: (src, dst, block, blocks, piece, action).
struct TransferKey {
  std::uint64_t members;  // src << 32 | dst
  std::uint64_t blocks;   // block << 32 | blocks
  std::uint64_t piece;    // piece << 8 | action
  bool operator==(const TransferKey&) const = default;
};
struct TransferKeyHash {
  std::size_t operator()(const TransferKey& k) const {
    std::uint64_t h = k.members * 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 29) ^ k.blocks) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 31) ^ k.piece) * 0x94d049bb133111ebULL;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
};

// Thrown inside this file only, to stop at the first violation; check_semantics returns it.
struct Violation {
  std::string description;
};

std::string describe(const Transfer& t) {
  const std::string blocks =
      t.blocks == 1 ? fmt::format("block {}", t.block) : fmt::format("blocks {}..{}", t.block, t.block + t.blocks - 1);
  return fmt::format("transfer {} -> {} of {} piece {} ({}, {} B, tag {})", t.src, t.dst, blocks, t.piece,
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
        endpoints_(spec.members + switch_count(algorithm, spec)),
        pieces_(pieces(spec)),
        blocks_(block_count(spec.op, spec.members)),
        rng_(seed, "semantics-checker"),
        held_(endpoints_),
        in_flight_per_member_(endpoints_, 0),
        reported_(spec.members, false) {
    for (std::uint32_t m = 0; m < n_; ++m) {
      switch (spec.op) {
        case CollectiveOp::kAllGather:
        case CollectiveOp::kGather: hold(m, m, m); break;
        case CollectiveOp::kAllToAll:
        case CollectiveOp::kAllToAllV:
          for (std::uint32_t j = 0; j < n_; ++j) hold(m, m * n_ + j, m);
          break;
        case CollectiveOp::kBroadcast:
          if (m == spec.root) hold(m, 0, m);
          break;
        case CollectiveOp::kScatter:
          if (m == spec.root) {
            for (std::uint32_t b = 0; b < n_; ++b) hold(m, b, m);
          }
          break;
        case CollectiveOp::kReduce: hold(m, 0, m); break;
        case CollectiveOp::kAllReduce:
        case CollectiveOp::kReduceScatter:
        case CollectiveOp::kBarrier:
          for (std::uint32_t b = 0; b < n_; ++b) hold(m, b, m);
          break;
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
    const Bytes expected = expected_wire_bytes(algorithm_, spec_);
    if (bytes_ != expected) {
      throw Violation{fmt::format("byte conservation: transfers carried {} B in all, expected {} B", bytes_, expected)};
    }
    for (std::uint32_t m = 0; m < n_; ++m) check_postcondition(m);
  }

  std::uint64_t transfers() const { return transfers_; }
  Bytes bytes() const { return bytes_; }

 private:
  std::uint64_t unit(std::uint32_t block, std::uint32_t piece) const {
    return std::uint64_t{block} * pieces_ + piece;
  }

  void hold(std::uint32_t member, std::uint32_t block, std::uint32_t contributor) {
    for (std::uint32_t p = 0; p < pieces_; ++p) held_[member][unit(block, p)] = Holding{only(contributor, n_), 1};
  }

  const Contributors* find(std::uint32_t member, std::uint32_t block, std::uint32_t piece) const {
    const auto it = held_[member].find(unit(block, piece));
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
    if (t.src >= endpoints_ || t.dst >= endpoints_ || t.src == t.dst || t.blocks == 0 ||
        std::uint64_t{t.block} + t.blocks > blocks_ || t.piece >= pieces_ || t.channel >= spec_.channels) {
      throw Violation{"malformed " + describe(t) +
                      fmt::format(" on {} members, {} switches, {} pieces", n_, endpoints_ - n_, pieces_)};
    }
    const Bytes want = range_bytes(spec_, t.block, t.blocks, t.piece);
    if (t.bytes != want) throw Violation{fmt::format("{} carries {} B; its units have {} B", describe(t), t.bytes, want)};
    if (t.wire_bytes != wire_bytes(t.bytes, t.protocol)) {
      throw Violation{fmt::format("{} puts {} B on the wire; its protocol {} needs {} B", describe(t), t.wire_bytes,
                                  to_string(t.protocol), wire_bytes(t.bytes, t.protocol))};
    }
    for (const std::uint32_t m : {t.src, t.dst}) {
      if (m < n_ && reported_[m]) {
        throw Violation{fmt::format("{} involves member {}, already reported finished", describe(t), m)};
      }
    }
    const TransferKey key{std::uint64_t{t.src} << 32 | t.dst, std::uint64_t{t.block} << 32 | t.blocks,
                          std::uint64_t{t.piece} << 8 | static_cast<std::uint8_t>(t.action)};
    if (!seen_.insert(key).second) {
      throw Violation{describe(t) + " was made ready twice"};
    }
    ++transfers_;
    bytes_ += t.bytes;
    InFlight flight{t, {}, {}};
    for (std::uint32_t b = t.block; b < t.block + t.blocks; ++b) {
      const auto source = held_[t.src].find(unit(b, t.piece));
      if (source == held_[t.src].end()) {
        const std::string who = t.src < n_ ? fmt::format("member {}", t.src)
                                           : fmt::format("switch {} (endpoint {})", t.src - n_, t.src);
        throw Violation{fmt::format("{}: {} does not hold block {} piece {}", describe(t), who, b, t.piece)};
      }
      flight.snapshot.push_back(source->second.counts);
      flight.source_versions.push_back(source->second.version);
    }
    in_flight_.push_back(std::move(flight));
    ++in_flight_per_member_[t.src];
    ++in_flight_per_member_[t.dst];
  }

  void deliver(const InFlight& done) {
    const Transfer& t = done.transfer;
    for (std::uint32_t i = 0; i < t.blocks; ++i) {
      const std::uint32_t b = t.block + i;
      if (held_[t.src].at(unit(b, t.piece)).version != done.source_versions[i]) {
        throw Violation{fmt::format("{}: the source block {} changed while the transfer was in flight "
                                    "(sent {}, now {})", describe(t), b, describe(&done.snapshot[i]),
                                    describe(find(t.src, b, t.piece)))};
      }
    }
    for (std::uint32_t i = 0; i < t.blocks; ++i) {
      Holding& target = held_[t.dst][unit(t.block + i, t.piece)];
      if (t.action == DataAction::kCopy || target.counts.empty()) {
        target.counts = done.snapshot[i];
      } else {
        for (std::uint32_t c = 0; c < n_; ++c) target.counts[c] += done.snapshot[i][c];
      }
      ++target.version;
    }
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
    for (std::uint32_t p = 0; p < pieces_; ++p) {
      const Contributors* actual = find(m, block, p);
      if (actual == nullptr || *actual != expected) {
        throw Violation{fmt::format("{}: member {} ends with block {} piece {} = {}; expected {}", to_string(spec_.op),
                                    m, block, p, describe(actual), expected_text)};
      }
    }
  }

  void check_postcondition(std::uint32_t m) const {
    const Contributors everyone(n_, 1);
    const std::string everyone_text = fmt::format("each of members 0..{} once", n_ - 1);
    const auto expect_own_blocks = [&] {
      for (std::uint32_t b = 0; b < n_; ++b) expect_block(m, b, only(b, n_), fmt::format("{{{}}}", b));
    };
    const std::uint32_t root = spec_.root;
    switch (spec_.op) {
      case CollectiveOp::kAllReduce:
      case CollectiveOp::kBarrier:
        for (std::uint32_t b = 0; b < n_; ++b) expect_block(m, b, everyone, everyone_text);
        break;
      case CollectiveOp::kReduceScatter: expect_block(m, m, everyone, everyone_text); break;
      case CollectiveOp::kAllGather: expect_own_blocks(); break;
      case CollectiveOp::kGather:
        if (m == root) expect_own_blocks();
        break;
      case CollectiveOp::kAllToAll:
      case CollectiveOp::kAllToAllV:
        for (std::uint32_t i = 0; i < n_; ++i) expect_block(m, i * n_ + m, only(i, n_), fmt::format("{{{}}}", i));
        break;
      case CollectiveOp::kBroadcast: expect_block(m, 0, only(root, n_), fmt::format("{{{}}}", root)); break;
      case CollectiveOp::kReduce:
        if (m == root) expect_block(m, 0, everyone, everyone_text);
        break;
      case CollectiveOp::kScatter: expect_block(m, m, only(root, n_), fmt::format("{{{}}}", root)); break;
    }
  }

  Execution& execution_;
  Algorithm algorithm_;
  CollectiveSpec spec_;
  std::uint32_t n_;
  std::uint32_t endpoints_;  // members, then switches (collective.h "Endpoints")
  std::uint32_t pieces_;
  std::uint64_t blocks_;
  RandomStream rng_;
  // Per endpoint: unit -> holding. A switch starts with nothing and holds partial sums.
  std::vector<std::unordered_map<std::uint64_t, Holding>> held_;
  std::vector<InFlight> in_flight_;
  std::vector<std::uint32_t> in_flight_per_member_;  // per endpoint: sends plus receives in flight
  std::vector<bool> reported_;
  std::uint32_t reported_count_ = 0;
  std::unordered_set<TransferKey, TransferKeyHash> seen_;
  std::uint64_t transfers_ = 0;
  Bytes bytes_ = 0;
};

// Switches an in-switch all-reduce's tree holds (n >= 2): nvls its host's switch; nvls-tree one
// per host with more than one member; in-network every switch of the tree.
std::uint64_t tree_switches(Algorithm algorithm, const CollectiveSpec& spec) {
  if (algorithm == Algorithm::kNvls) return 1;
  if (algorithm == Algorithm::kInNetwork) return spec.switch_tree ? spec.switch_tree->switches() : 0;
  std::vector<std::uint32_t> per_host(switch_count(algorithm, spec), 0);
  for (std::uint32_t m = 0; m < spec.members; ++m) ++per_host[spec.layout ? spec.layout->host[m] : 0];
  return static_cast<std::uint64_t>(std::count_if(per_host.begin(), per_host.end(), [](std::uint32_t g) { return g > 1; }));
}

}  // namespace

Bytes expected_wire_bytes(Algorithm algorithm, const CollectiveSpec& spec) {
  const std::uint64_t n = spec.members;
  const Bytes s = spec.size;
  switch (spec.op) {
    case CollectiveOp::kAllReduce:
      return uses_switches(algorithm) && n > 1 ? 2 * (n + tree_switches(algorithm, spec) - 1) * s : 2 * (n - 1) * s;
    case CollectiveOp::kBarrier: return 0;
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce: return (n - 1) * s;
    case CollectiveOp::kAllToAllV: {
      Bytes total = 0;
      for (std::uint64_t i = 0; i < n * n; ++i) total += i / n == i % n ? 0 : (*spec.pair_bytes)[i];
      return total;
    }
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter: return s - block_bytes(spec, spec.root);
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter: {
      if (algorithm != Algorithm::kHalvingDoubling) return (n - 1) * s;
      std::uint64_t power = 1;
      while (power <= n / 2) power *= 2;
      const std::uint64_t extra = n - power;
      Bytes folded_blocks = 0;
      for (std::uint64_t j = 0; j < extra; ++j) folded_blocks += block_bytes(spec, static_cast<std::uint32_t>(2 * j));
      return (power - 1) * s + extra * s + folded_blocks;
    }
  }
  LOOM_ASSERT(false, "unknown CollectiveOp value");
  return 0;
}

SemanticsCheckResult check_semantics(Execution& execution, Algorithm algorithm, const CollectiveSpec& spec,
                                     std::uint64_t seed) {
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

SemanticsCheckResult check_semantics(Algorithm algorithm, const CollectiveSpec& spec, std::uint64_t seed) {
  validate(spec);
  const std::unique_ptr<Execution> execution = make_execution(algorithm, spec);
  return check_semantics(*execution, algorithm, spec, seed);
}

}  // namespace loom::collective
