// Memoized transients: what a partition did between forming (or being disturbed) and being
// found steady, keyed by the canonical form of its flow-conflict graph (conflict_graph.h).
//
// An entry holds the transient's duration and, per QP in canonical order, the bytes it sent
// for the first time and those its receiver got over it, its steady rate (the window mean it was found steady at) and
// its congestion-control state then (the intensive part: rates, alpha, stages; timers and
// sequence marks stay the QP's own).
//
// Vouching: the key cannot hold everything that shapes a transient (the CC state is classed
// coarsely, queue depths in steps), so an entry is replayed only once a later simulated
// occurrence of its pattern agreed with it (`vouched`): each QP's steady rate within theta,
// and the bytes both predict at the end of the longer transient within theta. An occurrence
// that disagrees replaces the entry, which then waits for its own confirmation: a pattern
// whose outcome its key does not determine is simulated every time, never replayed. One memo serves one context: the text of every
// parameter that changes an outcome (the packet model's parameters, fast-forward's own, a
// format version); entries of another context are never mixed in.
//
// Persistence (save/load): one file per context in a directory, named by the context's hash;
// it holds a header (magic, format version, the context text), the entries and a checksum of
// everything before it. A file that is truncated, corrupted, of another format version or of
// another context is refused whole (UserError naming the file and what was wrong). save()
// merges this run's entries into the file under an exclusive lock of the directory
// (`.lock`, flock) and replaces it by writing a temporary file and renaming it over, so
// concurrent runs of a sweep never leave a torn or half-merged file.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "loom/core/time.h"

namespace loom::network::packet::fastforward {

using PatternDigest = std::array<std::uint64_t, 2>;

// The intensive congestion-control state of a QP (CcState's fields that do not hold absolute
// times or sequence numbers).
struct CcSnapshot {
  double rate = 0, target = 0, alpha = 0, reference_rate = 0, u = 0, rtt_diff = 0;
  std::int64_t prev_rtt_ps = 0;
  std::uint32_t stage = 0, inc_stage = 0;
  bool dcqcn_started = false;
  friend bool operator==(const CcSnapshot&, const CcSnapshot&) = default;
};

struct FlowOutcome {
  std::uint64_t sent = 0;      // bytes sent for the first time over the transient (whole MTUs)
  std::uint64_t received = 0;  // in-order bytes its receiver gained over it
  double rate = 0;         // steady rate at its end, bit/s
  CcSnapshot cc;
  friend bool operator==(const FlowOutcome&, const FlowOutcome&) = default;
};

struct TransientOutcome {
  Time duration;
  std::vector<FlowOutcome> flows;  // canonical order
  bool vouched = false;  // a later simulated occurrence agreed with it
  friend bool operator==(const TransientOutcome&, const TransientOutcome&) = default;
};

// Whether two simulated occurrences of one pattern agree (see the header comment).
bool outcomes_agree(const TransientOutcome& a, const TransientOutcome& b, double threshold);

class TransientMemo {
 public:
  // 2: rate-only DCQCN rates are whole-cycle means. 3: entries are vouched for. 4: QP ages
  // are in the key.
  static constexpr std::uint32_t kFormatVersion = 4;

  // `threshold`: theta, the agreement that vouches for an entry.
  TransientMemo(std::string context, double threshold);

  // The entry under `digest`, vouched for or not (nullptr when none).
  const TransientOutcome* find(const PatternDigest& digest) const;
  enum class Stored { kNew, kVouched, kReplaced, kKnown };
  // A simulated occurrence of the pattern: stored when new, vouches for an entry it agrees
  // with, replaces one it does not (kKnown: the entry was vouched for already).
  Stored store(const PatternDigest& digest, TransientOutcome outcome);
  std::size_t size() const { return entries_.size(); }
  const std::map<PatternDigest, TransientOutcome>& entries() const { return entries_; }
  const std::string& context() const { return context_; }

  // This context's file in `dir`.
  std::filesystem::path file_in(const std::filesystem::path& dir) const;
  // Adds the entries of this context's file in `dir` (none when it does not exist); returns
  // how many. Throws UserError for a file that cannot be used (see the header comment).
  std::size_t load(const std::filesystem::path& dir);
  // Merges the entries into this context's file in `dir` (created with the directory when
  // missing). Throws UserError when it cannot.
  void save(const std::filesystem::path& dir) const;

 private:
  // Adds an entry of another run (a file): a vouched entry wins over one that is not.
  bool merge(const PatternDigest& digest, TransientOutcome outcome);

  std::string context_;
  double threshold_;
  std::map<PatternDigest, TransientOutcome> entries_;
};

}  // namespace loom::network::packet::fastforward
