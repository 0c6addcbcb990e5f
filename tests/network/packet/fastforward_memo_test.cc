// Memoized transients: the conflict graph's canonical form identifies isomorphic contention
// patterns and only those; a pattern simulated once is replayed at another time and place,
// with other flow sizes, within 0.5% of the full run; another congestion control misses; the
// memo survives in a file across runs, and a damaged or foreign file is refused whole.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "loom/core/error.h"
#include "loom/network/packet/fastforward/conflict_graph.h"
#include "loom/network/packet/fastforward/fast_forward.h"
#include "loom/network/packet/fastforward/transient_memo.h"
#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

namespace fs = std::filesystem;
using fastforward::CanonicalPattern;
using fastforward::FlowOutcome;
using fastforward::FlowVertex;
using fastforward::TransientMemo;
using fastforward::TransientOutcome;
using topology::LinkId;

// Two flows into one port (links 7, 8 -> 9; ACKs back over 10, 11), flow colours a and b.
CanonicalPattern two_to_one(std::uint64_t a, std::uint64_t b, const std::vector<LinkId>& links, bool swap) {
  const std::vector<LinkId> f0{links[0], links[2]}, r0{links[3]}, f1{links[1], links[2]}, r1{links[4]};
  std::vector<FlowVertex> flows{{a, f0, r0}, {b, f1, r1}};
  if (swap) std::swap(flows[0], flows[1]);
  std::vector<LinkId> ports = links;
  std::reverse(ports.begin(), ports.end());
  return fastforward::canonical_pattern(flows, ports, std::vector<std::uint64_t>(ports.size(), 1));
}

TEST(ConflictGraph, IsomorphicPatternsShareADigestAndOnlyThey) {
  const CanonicalPattern p = two_to_one(5, 6, {7, 8, 9, 10, 11}, false);
  // Other link ids, flows listed the other way round: the same pattern.
  const CanonicalPattern q = two_to_one(5, 6, {20, 21, 22, 23, 24}, true);
  EXPECT_EQ(p.digest, q.digest);
  // The canonical order puts the flow coloured 5 at the same place in both.
  ASSERT_EQ(p.order.size(), 2u);
  EXPECT_EQ(p.order[0], 1 - q.order[0]);
  // Another colour, or two flows that no longer share their last hop: other digests.
  EXPECT_NE(p.digest, two_to_one(5, 7, {7, 8, 9, 10, 11}, false).digest);
  const std::vector<LinkId> f0{7, 9}, r0{10}, f1{8, 12}, r1{11};
  const std::vector<FlowVertex> apart{{5, f0, r0}, {6, f1, r1}};
  const std::vector<LinkId> ports{7, 8, 9, 10, 11, 12};
  EXPECT_NE(p.digest, fastforward::canonical_pattern(apart, ports, std::vector<std::uint64_t>(6, 1)).digest);
}

PacketParams memo_params(CcKind cc, bool memo, const std::string& dir = "") {
  PacketParams p;
  p.cc.kind = cc;
  p.nic.window = true;  // DCQCN as SimAI.conf runs it (its own default is rate-only)
  p.fast_forward.enabled = true;
  p.fast_forward.memo = memo;
  p.fast_forward.whole_life = memo;
  p.fast_forward.memo_dir = dir;
  return p;
}

// Steady transients only (no whole lives): for tests of their replays.
PacketParams steady_memo_params(CcKind cc, const std::string& dir = "") {
  PacketParams p = memo_params(cc, true, dir);
  p.fast_forward.whole_life = false;
  return p;
}

struct Phases {
  std::vector<Time> done;
  fastforward::FastForwardCounters counters;
  std::uint64_t events = 0;
};

// Phase k starts at k x 8 ms: senders 2k and 2k + 1 send sizes[k] bytes each, phase 0 to the
// receiver, phase k > 0 to sender 2k - 2 (another time, other ports: an isomorphic pattern);
// sender 2k + 1 starts staggers[k] after sender 2k (none when staggers is shorter).
Phases phases(const PacketParams& params, const std::vector<Bytes>& sizes, const std::vector<Time>& staggers = {}) {
  const auto count = static_cast<std::uint32_t>(sizes.size());
  testing::Star star(2 * count, params);
  star.recorder.simulator = &star.simulator;
  star.recorder.done.assign(2 * count, Time::max());
  struct Phase {
    testing::Star* star;
    std::uint64_t k;
    Bytes bytes;
    Time stagger;
    void send(std::uint64_t i) const {
      testing::Star& s = *star;
      const topology::NodeId to = k == 0 ? s.receiver : s.senders[2 * k - 2];
      s.backend->start({s.senders[i], to, bytes, i}, s.recorder, i);
    }
    static void start(void* self, std::uint64_t) {
      const Phase& p = *static_cast<Phase*>(self);
      p.send(2 * p.k);
      if (p.stagger == Time::zero()) {
        p.send(2 * p.k + 1);
      } else {
        p.star->simulator.schedule_at(p.star->simulator.now() + p.stagger, &Phase::start_second, self);
      }
    }
    static void start_second(void* self, std::uint64_t) {
      const Phase& p = *static_cast<Phase*>(self);
      p.send(2 * p.k + 1);
    }
  };
  std::vector<Phase> all;
  for (std::uint64_t k = 0; k < count; ++k) all.push_back({&star, k, sizes[k], k < staggers.size() ? staggers[k] : Time::zero()});
  for (Phase& p : all) star.simulator.schedule_at(Time::ms(8) * static_cast<std::int64_t>(p.k), &Phase::start, &p);
  star.simulator.run();
  star.backend->finish();
  const auto* ff = star.backend->fast_forward();
  return {star.recorder.done, ff ? ff->counters() : fastforward::FastForwardCounters{}, star.simulator.events_processed()};
}

double worst_error(const std::vector<Time>& full, const std::vector<Time>& fast) {
  double worst = 0;
  for (std::size_t i = 0; i < full.size(); ++i) worst = std::max(worst, std::abs(fast[i].seconds() / full[i].seconds() - 1));
  return worst;
}

Phases full_run(CcKind cc, const std::vector<Bytes>& sizes) {
  PacketParams p = memo_params(cc, false);
  p.fast_forward.enabled = false;  // the exact baseline
  return phases(p, sizes);
}

// Seen once, a pattern is stored; seen again and agreeing, vouched for; the third time replayed.
TEST(FastForwardMemo, APatternSeenTwiceIsReplayedElsewhereLaterWithOtherSizes) {
  const std::vector<Bytes> sizes{40'000'000, 25'000'000, 30'000'000};
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc}) {
    const Phases full = full_run(cc, sizes);
    const Phases plain = phases(memo_params(cc, false), sizes);
    const Phases memo = phases(memo_params(cc, true), sizes);
    std::printf("%s: worst FCT error %.4f%% (without memo %.4f%%), events %llu -> %llu -> %llu, hits %llu\n",
                std::string(to_string(cc)).c_str(), 100 * worst_error(full.done, memo.done),
                100 * worst_error(full.done, plain.done), static_cast<unsigned long long>(full.events),
                static_cast<unsigned long long>(plain.events), static_cast<unsigned long long>(memo.events),
                static_cast<unsigned long long>(memo.counters.memo_hits));
    EXPECT_EQ(memo.counters.memo_stored, 1u) << to_string(cc);
    EXPECT_EQ(memo.counters.memo_vouched, 1u) << to_string(cc);
    EXPECT_EQ(memo.counters.memo_hits, 1u) << to_string(cc);
    EXPECT_EQ(plain.counters.memo_hits, 0u) << to_string(cc);
    EXPECT_LT(worst_error(full.done, memo.done), 0.005) << to_string(cc);
    EXPECT_LT(memo.events, plain.events) << to_string(cc);
  }
}

// An entry is replayed only after a second simulated occurrence agreed with it: rates within
// theta, and the bytes both predict by the end of the longer transient within theta (a later
// end with the steady rate's bytes added agrees); one that disagrees replaces it.
TEST(TransientMemo, VouchesForAnEntryOnlyWhenASecondOccurrenceAgrees) {
  using Stored = TransientMemo::Stored;
  const TransientOutcome o{Time::us(400), {{5'000'000, 4'900'000, 5e10, {.rate = 5e10}}, {2'000'000, 1'900'000, 2e10, {}}}};
  TransientOutcome close = o;
  close.flows[0].rate *= 1.03;
  TransientOutcome later = o;  // found steady 100 us later, having sent 100 us more at its rates
  later.duration += Time::us(100);
  for (FlowOutcome& f : later.flows) {
    const auto more = static_cast<std::uint64_t>(f.rate * 100e-6 / 8);
    f.sent += more;
    f.received += more;
  }
  TransientOutcome faster = o;
  faster.flows[1].rate *= 1.2;
  TransientOutcome more_bytes = o;
  more_bytes.flows[0].sent *= 2;
  EXPECT_TRUE(fastforward::outcomes_agree(o, close, 0.05));
  EXPECT_TRUE(fastforward::outcomes_agree(o, later, 0.05));
  EXPECT_FALSE(fastforward::outcomes_agree(o, faster, 0.05));
  EXPECT_FALSE(fastforward::outcomes_agree(o, more_bytes, 0.05));
  EXPECT_FALSE(fastforward::outcomes_agree(o, close, 0.02));

  TransientMemo memo("context\n", 0.05);
  EXPECT_EQ(memo.store({1, 1}, o), Stored::kNew);
  ASSERT_NE(memo.find({1, 1}), nullptr);
  EXPECT_FALSE(memo.find({1, 1})->vouched);
  EXPECT_EQ(memo.store({1, 1}, later), Stored::kVouched);
  EXPECT_TRUE(memo.find({1, 1})->vouched);
  EXPECT_EQ(memo.find({1, 1})->duration, o.duration);  // the first outcome, now vouched for
  EXPECT_EQ(memo.store({1, 1}, faster), Stored::kKnown);

  EXPECT_EQ(memo.store({2, 2}, o), Stored::kNew);
  EXPECT_EQ(memo.store({2, 2}, faster), Stored::kReplaced);
  EXPECT_FALSE(memo.find({2, 2})->vouched);
  EXPECT_EQ(memo.find({2, 2})->flows[1].rate, faster.flows[1].rate);
  EXPECT_EQ(memo.store({2, 2}, o), Stored::kReplaced);  // outcomes that alternate are never vouched for
  EXPECT_FALSE(memo.find({2, 2})->vouched);
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("loom_memo_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TEST(FastForwardMemo, PersistsAcrossRunsAndAnotherCongestionControlMisses) {
  const fs::path dir = fresh_dir("persist");
  const std::vector<Bytes> once{40'000'000};
  const Phases first = phases(memo_params(CcKind::kDcqcn, true, dir), once);
  EXPECT_EQ(first.counters.memo_hits, 0u);
  EXPECT_EQ(first.counters.memo_stored, 1u);
  // A second run simulates the pattern again and vouches for the entry; a third replays it at
  // its first sight.
  const Phases second = phases(memo_params(CcKind::kDcqcn, true, dir), once);
  EXPECT_EQ(second.counters.memo_loaded, 1u);
  EXPECT_EQ(second.counters.memo_hits, 0u);
  EXPECT_EQ(second.counters.memo_vouched, 1u);
  const Phases third = phases(memo_params(CcKind::kDcqcn, true, dir), once);
  EXPECT_EQ(third.counters.memo_hits, 1u);
  EXPECT_LT(worst_error(full_run(CcKind::kDcqcn, once).done, third.done), 0.005);
  EXPECT_LT(third.events, first.events);
  // Another congestion control, or another DCQCN parameter: another context, nothing loaded.
  EXPECT_EQ(phases(memo_params(CcKind::kHpcc, true, dir), once).counters.memo_hits, 0u);
  PacketParams tuned = memo_params(CcKind::kDcqcn, true, dir);
  tuned.cc.dcqcn.g = 1.0 / 128;
  EXPECT_NE(fastforward::memo_context(tuned), fastforward::memo_context(memo_params(CcKind::kDcqcn, true, dir)));
  EXPECT_EQ(phases(tuned, once).counters.memo_loaded, 0u);
  fs::remove_all(dir);
}

// A QP's age is in the key: a pattern vouched for when its QPs started together is not
// replayed when one of them started half a microsecond before the other (else alike: neither
// has been acknowledged yet, both at line rate), while a pattern staggered alike each time is.
TEST(FastForwardMemo, AStaggeredStartIsAnotherPattern) {
  const std::vector<Bytes> sizes{40'000'000, 25'000'000, 30'000'000};
  const Time half_us = Time::ns(500);
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc}) {
    for (const bool all_staggered : {false, true}) {
      const std::vector<Time> staggers = all_staggered ? std::vector<Time>{half_us, half_us, half_us}
                                                       : std::vector<Time>{Time::zero(), Time::zero(), half_us};
      PacketParams full_params = memo_params(cc, false);
      full_params.fast_forward.enabled = false;
      const Phases full = phases(full_params, sizes, staggers);
      const Phases memo = phases(memo_params(cc, true), sizes, staggers);
      EXPECT_EQ(memo.counters.memo_vouched, 1u) << to_string(cc) << all_staggered;
      EXPECT_EQ(memo.counters.memo_hits, all_staggered ? 1u : 0u) << to_string(cc) << all_staggered;
      EXPECT_LT(worst_error(full.done, memo.done), 0.005) << to_string(cc) << all_staggered;
    }
  }
}

// An entry whose replay would have a port carry more than its line rate (within theta) is
// refused, counted as unusable, and the transient simulated: the run is the one without a
// memo. The entry as recorded is replayed.
TEST(FastForwardMemo, AReplayBeyondAPortsCapacityIsRefused) {
  const std::vector<Bytes> once{40'000'000};
  const fs::path dir = fresh_dir("capacity");
  for (int run = 0; run < 2; ++run) phases(steady_memo_params(CcKind::kDcqcn, dir), once);  // stored, vouched
  TransientMemo recorded(fastforward::memo_context(steady_memo_params(CcKind::kDcqcn, dir)), 0.05);
  ASSERT_EQ(recorded.load(dir), 1u);
  const auto& [digest, outcome] = *recorded.entries().begin();
  ASSERT_TRUE(outcome.vouched);
  const Phases plain = phases(memo_params(CcKind::kDcqcn, false), once);
  for (const double scale : {1.0, 3.0, 0.0}) {
    // 3.0: both flows' steady rates tripled (their shared port would carry 3x its line rate
    // after the transient); 0.0: their transient bytes tripled (... over the transient).
    TransientOutcome changed = outcome;
    for (FlowOutcome& f : changed.flows) {
      if (scale == 0.0) {
        f.sent *= 3;
        f.received *= 3;
      } else {
        f.rate *= scale;
      }
    }
    const fs::path crafted_dir = fresh_dir("capacity_crafted");
    const PacketParams params = steady_memo_params(CcKind::kDcqcn, crafted_dir.string());
    TransientMemo crafted(fastforward::memo_context(params), 0.05);
    crafted.store(digest, changed);
    crafted.store(digest, changed);  // vouched
    crafted.save(crafted_dir);
    const Phases replayed = phases(params, once);
    EXPECT_EQ(replayed.counters.memo_loaded, 1u) << scale;
    if (scale == 1.0) {
      EXPECT_EQ(replayed.counters.memo_hits, 1u);
      EXPECT_LT(replayed.events, plain.events);
    } else {
      EXPECT_EQ(replayed.counters.memo_hits, 0u) << scale;
      EXPECT_EQ(replayed.counters.memo_unusable, 1u) << scale;
      EXPECT_EQ(replayed.done, plain.done) << scale;
      EXPECT_EQ(replayed.events, plain.events) << scale;
    }
    fs::remove_all(crafted_dir);
  }
  fs::remove_all(dir);
}

// The QPs of a collective start at one instant: with a 2-to-1 pattern vouched for, a 3-to-1 incast
// replays it at its second start and cuts it at once at the third (a skip-back at zero
// elapsed), which must leave the QPs' CC state as it was: the 3-to-1 transient is then
// simulated from the true state, as without a memo.
TEST(FastForwardMemo, AReplayCutAtOnceLeavesTheStateAsItWas) {
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc}) {
    const fs::path dir = fresh_dir("cut");
    for (int run = 0; run < 2; ++run) {  // stored, then vouched for
      testing::Star first(2, steady_memo_params(cc, dir));
      first.incast(30'000'000);
      first.backend->finish();
    }
    PacketParams full_params = memo_params(cc, false);
    full_params.fast_forward.enabled = false;
    const std::vector<Time> full = testing::Star(3, full_params).incast(30'000'000);
    testing::Star cut(3, steady_memo_params(cc, dir));
    const std::vector<Time> fast = cut.incast(30'000'000);
    const auto& counters = cut.backend->fast_forward()->counters();
    const std::vector<Time> plain = testing::Star(3, memo_params(cc, false)).incast(30'000'000);
    std::printf("%s: replay cut at once: worst FCT error %.4f%% (without memo %.4f%%), hits %llu, skip-backs %llu\n",
                std::string(to_string(cc)).c_str(), 100 * worst_error(full, fast), 100 * worst_error(full, plain),
                static_cast<unsigned long long>(counters.memo_hits), static_cast<unsigned long long>(counters.skip_backs));
    EXPECT_EQ(counters.memo_loaded, 1u) << to_string(cc);
    EXPECT_GE(counters.memo_hits, 1u) << to_string(cc);
    EXPECT_GE(counters.skip_backs, 1u) << to_string(cc);
    // Exactly the run without a memo (whose own error against the full run is fast-forward's).
    EXPECT_EQ(fast, plain) << to_string(cc);
    fs::remove_all(dir);
  }
}

// Whole lives: 1 MB flows 2-to-1 at 100 Gb/s end (160 us) long before a window fills (1 ms
// under HPCC, 400 us under DCQCN with the window): never found steady, never skipped. Their
// life up to the first completion is stored at the first phase, vouched for at the second and
// replayed at the third and fourth; flows of another size have another key.
TEST(FastForwardMemo, AWholeLifeSeenTwiceIsReplayedToItsFirstCompletion) {
  const std::vector<Bytes> equal(4, 1'000'000);
  const std::vector<Bytes> resized{1'000'000, 1'000'000, 1'500'000, 1'500'000};
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc}) {
    const Phases full = full_run(cc, equal);
    PacketParams steady_only = memo_params(cc, true);
    steady_only.fast_forward.whole_life = false;
    const Phases plain = phases(steady_only, equal);
    const Phases life = phases(memo_params(cc, true), equal);
    std::printf("%s: whole lives: worst FCT error %.4f%%, events %llu -> %llu (without %llu), hits %llu, stored %llu\n",
                std::string(to_string(cc)).c_str(), 100 * worst_error(full.done, life.done),
                static_cast<unsigned long long>(full.events), static_cast<unsigned long long>(life.events),
                static_cast<unsigned long long>(plain.events), static_cast<unsigned long long>(life.counters.life_hits),
                static_cast<unsigned long long>(life.counters.life_stored));
    EXPECT_EQ(plain.counters.skips, 0u) << to_string(cc);  // too short to be found steady
    EXPECT_EQ(plain.done, full.done) << to_string(cc);
    EXPECT_GE(life.counters.life_vouched, 1u) << to_string(cc);
    EXPECT_GE(life.counters.life_hits, 2u) << to_string(cc);
    EXPECT_LT(life.events, full.events * 3 / 4) << to_string(cc);
    EXPECT_LT(worst_error(full.done, life.done), 0.005) << to_string(cc);
    // Phases 2 and 3 have other sizes: stored anew, not replayed.
    const Phases other = phases(memo_params(cc, true), resized);
    std::printf("%s: other sizes: stored %llu, vouched %llu, disputed %llu\n", std::string(to_string(cc)).c_str(),
                static_cast<unsigned long long>(other.counters.life_stored),
                static_cast<unsigned long long>(other.counters.life_vouched),
                static_cast<unsigned long long>(other.counters.life_disputed));
    EXPECT_EQ(other.counters.life_hits, 0u) << to_string(cc);
    EXPECT_EQ(other.counters.life_stored, 2u) << to_string(cc);  // the 1 MB and the 1.5 MB pattern
    EXPECT_LT(worst_error(full_run(cc, resized).done, other.done), 0.005) << to_string(cc);
  }
}

// A whole life recorded under one congestion control is not replayed under another: the
// memo file of another context is not loaded.
TEST(FastForwardMemo, AWholeLifeOfAnotherCongestionControlMisses) {
  const fs::path dir = fresh_dir("life");
  const std::vector<Bytes> twice(2, 1'000'000);
  phases(memo_params(CcKind::kHpcc, true, dir), twice);  // stored and vouched for
  const Phases same = phases(memo_params(CcKind::kHpcc, true, dir), twice);
  EXPECT_GE(same.counters.life_hits, 2u);
  const Phases other = phases(memo_params(CcKind::kDcqcn, true, dir), twice);
  EXPECT_EQ(other.counters.memo_loaded, 0u);
  EXPECT_EQ(other.counters.life_hits, 0u);
  fs::remove_all(dir);
  PacketParams without_memo = memo_params(CcKind::kHpcc, false);
  without_memo.fast_forward.whole_life = true;
  EXPECT_THROW(check_packet_params(without_memo), UserError);
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

std::string refusal(const TransientMemo& prototype, const fs::path& dir) {
  TransientMemo memo(prototype.context(), 0.05);
  try {
    memo.load(dir);
  } catch (const UserError& e) {
    EXPECT_EQ(memo.size(), 0u) << "a refused file was half used";
    return e.what();
  }
  return "";
}

TEST(TransientMemoFile, RoundTripsMergesAndRefusesDamagedOrForeignFiles) {
  const fs::path dir = fresh_dir("file");
  TransientMemo a("context A\n", 0.05);
  TransientOutcome o{Time::us(420), {{3000, 2000, 4.9e10, {.rate = 5e10, .alpha = 0.25, .stage = 3, .dcqcn_started = true}}}};
  a.store({1, 2}, o);
  a.store({1, 2}, o);
  o.vouched = true;  // as the file keeps it
  a.save(dir);
  TransientMemo b("context A\n", 0.05);  // a concurrent run of the same context
  b.store({3, 4}, o);
  b.save(dir);
  TransientMemo merged("context A\n", 0.05);
  EXPECT_EQ(merged.load(dir), 2u);
  ASSERT_NE(merged.find({1, 2}), nullptr);
  EXPECT_EQ(*merged.find({1, 2}), o);

  const fs::path file = a.file_in(dir);
  const std::string good = read_bytes(file);
  write_bytes(file, good.substr(0, good.size() - 5));
  EXPECT_NE(refusal(a, dir).find("truncated"), std::string::npos);
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x10;
  write_bytes(file, flipped);
  EXPECT_NE(refusal(a, dir).find("corrupted"), std::string::npos);
  write_bytes(file, "some other file\n");
  EXPECT_NE(refusal(a, dir).find("not a Loom memo"), std::string::npos);
  std::string newer = good;
  newer[8] = static_cast<char>(TransientMemo::kFormatVersion + 1);
  write_bytes(file, newer);
  EXPECT_NE(refusal(a, dir).find("format version"), std::string::npos);
  // Another context's file under this context's name (copied by hand).
  TransientMemo other("context B\n", 0.05);
  other.store({1, 2}, o);
  other.save(dir);
  fs::copy_file(other.file_in(dir), file, fs::copy_options::overwrite_existing);
  EXPECT_NE(refusal(a, dir).find("other network.packet parameters"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace loom::network::packet
