// Deliberately broken algorithms: the semantics checker must catch each one, whatever the
// interleaving.
#include <functional>
#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loom/collective/block_layout.h"
#include "loom/collective/completion_tracker.h"
#include "loom/collective/semantics_checker.h"
#include "loom/collective/step_execution.h"
#include "loom/collective/tree_schedule.h"

namespace loom::collective {
namespace {

using ::testing::HasSubstr;

// Passes a real execution's output through `tamper` before the checker sees it.
class Tampered final : public Execution {
 public:
  Tampered(Algorithm algorithm, const CollectiveSpec& spec, std::function<void(Progress&)> tamper)
      : inner_(make_execution(algorithm, spec)), tamper_(std::move(tamper)) {}
  void start(Progress& out) override {
    inner_->start(out);
    tamper_(out);
  }
  void on_done(const Transfer& done, Progress& out) override {
    inner_->on_done(done, out);
    tamper_(out);
  }
  bool finished() const override { return inner_->finished(); }

 private:
  std::unique_ptr<Execution> inner_;
  std::function<void(Progress&)> tamper_;
};

// A ring all-reduce that skips member 0's reduce-scatter step 1: it tells the real ring the
// transfer arrived without ever sending it.
class SkippingRing final : public Execution {
 public:
  explicit SkippingRing(const CollectiveSpec& spec) : inner_(make_execution(Algorithm::kRing, spec)) {}
  void start(Progress& out) override {
    inner_->start(out);
    skip(out);
  }
  void on_done(const Transfer& done, Progress& out) override {
    inner_->on_done(done, out);
    skip(out);
  }
  bool finished() const override { return inner_->finished(); }

 private:
  void skip(Progress& out) {
    for (std::size_t i = 0; i < out.ready.size(); ++i) {
      const Transfer t = out.ready[i];
      if (t.src != 0 || t.step != 1) continue;
      out.ready.erase(out.ready.begin() + static_cast<std::ptrdiff_t>(i));
      inner_->on_done(t, out);
      return;
    }
  }
  std::unique_ptr<Execution> inner_;
};

// A ring that sends every step at once instead of waiting for the block it forwards.
class EagerRing final : public Execution {
 public:
  explicit EagerRing(const CollectiveSpec& spec)
      : spec_(spec), steps_(spec.op == CollectiveOp::kAllReduce ? 2 * (spec.members - 1) : spec.members - 1),
        tracker_(std::vector<std::uint32_t>(spec.members, steps_), std::vector<std::uint32_t>(spec.members, steps_)) {}
  void start(Progress& out) override {
    const std::uint32_t n = spec_.members;
    for (std::uint32_t step = 0; step < steps_; ++step) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const bool reduce = spec_.op == CollectiveOp::kAllReduce && step < n - 1;
        const std::uint32_t back = reduce ? step + 1 : (step >= n - 1 ? step - (n - 1) : step);
        const std::uint32_t block = (i + n - back % n) % n;
        const Bytes bytes = block_bytes(spec_, block);
        out.ready.push_back({.src = i, .dst = (i + 1) % n, .bytes = bytes, .block = block,
                             .action = reduce ? DataAction::kReduce : DataAction::kCopy, .tag = step,
                             .wire_bytes = bytes});
      }
    }
    tracker_.start(out);
  }
  void on_done(const Transfer& done, Progress& out) override { tracker_.on_done(done, out); }
  bool finished() const override { return tracker_.finished(); }

 private:
  CollectiveSpec spec_;
  std::uint32_t steps_;
  CompletionTracker tracker_;
};

const CollectiveSpec kAllReduce8{.op = CollectiveOp::kAllReduce, .members = 8, .size = 1000};

void expect_caught(Execution& execution, Algorithm algorithm, const CollectiveSpec& spec, std::uint64_t seed,
                   const std::string& expected) {
  const SemanticsCheckResult result = check_semantics(execution, algorithm, spec, seed);
  EXPECT_FALSE(result.ok) << "seed " << seed;
  EXPECT_THAT(result.description, HasSubstr(expected)) << "seed " << seed;
}

TEST(BrokenAlgorithms, RingThatSkipsAStepIsCaught) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SkippingRing ring(kAllReduce8);
    expect_caught(ring, Algorithm::kRing, kAllReduce8, seed, "expected each of members 0..7 once");
  }
}

TEST(BrokenAlgorithms, AllGatherSendingBeforeItsDependencyIsCaught) {
  const CollectiveSpec spec{.op = CollectiveOp::kAllGather, .members = 5, .size = 1000};
  EagerRing ring(spec);
  // Step 1 of member 0 forwards block 4, which member 0 has not received yet.
  expect_caught(ring, Algorithm::kRing, spec, 1,
                "transfer 0 -> 1 of block 4 piece 0 (copy, 200 B, tag 1): member 0 does not hold block 4 piece 0");
}

TEST(BrokenAlgorithms, AllReduceSendingBeforeItsDependencyIsCaught) {
  // Every block is held from the start, so only the data itself shows the mistake: either a
  // forwarded block is overwritten while in flight, or a member ends with partial sums.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    EagerRing ring(kAllReduce8);
    const SemanticsCheckResult result = check_semantics(ring, Algorithm::kRing, kAllReduce8, seed);
    ASSERT_FALSE(result.ok) << "seed " << seed;
    EXPECT_TRUE(result.description.find("changed while the transfer was in flight") != std::string::npos ||
                result.description.find("expected each of members 0..7 once") != std::string::npos)
        << result.description;
  }
}

TEST(BrokenAlgorithms, DuplicateTransferIsCaught) {
  Tampered duplicating(Algorithm::kDirect, kAllReduce8, [](Progress& out) {
    if (!out.ready.empty()) out.ready.push_back(out.ready.front());
  });
  expect_caught(duplicating, Algorithm::kDirect, kAllReduce8, 1,
                "transfer 0 -> 1 of block 1 piece 0 (reduce, 125 B, tag 0) was made ready twice");
}

TEST(BrokenAlgorithms, FinishingWithTransfersInFlightIsCaught) {
  bool reported = false;
  Tampered early(Algorithm::kRing, kAllReduce8, [&reported](Progress& out) {
    if (!reported) out.finished_members.push_back(3);
    reported = true;
  });
  expect_caught(early, Algorithm::kRing, kAllReduce8, 1, "member 3 reported finished with 2 of its transfers in flight");
}

TEST(BrokenAlgorithms, FinishingTwiceIsCaught) {
  Tampered twice(Algorithm::kDirect, kAllReduce8, [](Progress& out) {
    if (!out.finished_members.empty()) out.finished_members.push_back(out.finished_members.back());
  });
  expect_caught(twice, Algorithm::kDirect, kAllReduce8, 1, "reported finished twice");
}

TEST(BrokenAlgorithms, LostTransferStalls) {
  Tampered lossy(Algorithm::kRing, kAllReduce8, [](Progress& out) {
    std::erase_if(out.ready, [](const Transfer& t) { return t.src == 2 && t.step == 9; });
  });
  expect_caught(lossy, Algorithm::kRing, kAllReduce8, 1,
                "stalled: nothing in flight but the execution is not finished");
}

TEST(BrokenAlgorithms, WrongByteCountIsCaught) {
  Tampered padded(Algorithm::kRing, kAllReduce8, [](Progress& out) {
    for (Transfer& t : out.ready) t.bytes += 1;
  });
  expect_caught(padded, Algorithm::kRing, kAllReduce8, 1, "transfer 0 -> 1 of block 7 piece 0 (reduce, 126 B, tag 0) carries 126 B; its units have 125 B");
}

// An all-to-all that also sends each member's first block to a third member and completes
// those extra transfers itself: the data lands in scratch, but the volume gives it away.
class Chatty final : public Execution {
 public:
  explicit Chatty(const CollectiveSpec& spec) : inner_(make_execution(Algorithm::kDirect, spec)), n_(spec.members) {}
  void start(Progress& out) override {
    inner_->start(out);
    add_extras(out);
  }
  void on_done(const Transfer& done, Progress& out) override {
    if (done.tag == kExtraTag) return;
    inner_->on_done(done, out);
    add_extras(out);
  }
  bool finished() const override { return inner_->finished(); }

 private:
  static constexpr std::uint32_t kExtraTag = 77;
  void add_extras(Progress& out) {
    const std::size_t count = out.ready.size();
    for (std::size_t i = 0; i < count; ++i) {
      Transfer extra = out.ready[i];
      if (extra.step != 0) continue;
      extra.dst = (extra.dst + 1) % n_ == extra.src ? (extra.dst + 2) % n_ : (extra.dst + 1) % n_;
      extra.tag = kExtraTag;
      extra.action = DataAction::kReduce;
      out.ready.push_back(extra);
    }
  }
  std::unique_ptr<Execution> inner_;
  std::uint32_t n_;
};

TEST(BrokenAlgorithms, ExtraTransfersAreCaught) {
  // Either a member is reported finished while an extra transfer to it is still in flight, or
  // (when every extra lands first) the volume is 400 B too high.
  const CollectiveSpec spec{.op = CollectiveOp::kAllToAll, .members = 4, .size = 400};
  bool volume_caught = false;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Chatty chatty(spec);
    const SemanticsCheckResult result = check_semantics(chatty, Algorithm::kDirect, spec, seed);
    ASSERT_FALSE(result.ok) << "seed " << seed;
    const bool volume = result.description == "byte conservation: transfers carried 1600 B in all, expected 1200 B";
    volume_caught = volume_caught || volume;
    EXPECT_TRUE(volume || result.description.find("of its transfers in flight") != std::string::npos)
        << result.description;
  }
  EXPECT_TRUE(volume_caught);
}

// A double binary tree whose root broadcasts a chunk without waiting for its reduction.
class ImpatientRoot final : public StepSchedule {
 public:
  explicit ImpatientRoot(const CollectiveSpec& spec) : tree_(spec) {}
  std::uint32_t threads() const override { return tree_.threads(); }
  std::uint32_t slots() const override { return tree_.slots(); }
  std::uint32_t length(std::uint32_t m, std::uint32_t c, std::uint32_t t) const override { return tree_.length(m, c, t); }
  std::uint32_t receives(std::uint32_t m, std::uint32_t c) const override { return tree_.receives(m, c); }
  Step step(std::uint32_t m, std::uint32_t c, std::uint32_t t, std::uint32_t i) const override {
    Step s = tree_.step(m, c, t, i);
    s.after_thread = kNoThread;
    return s;
  }

 private:
  TreeSchedule tree_;
};

TEST(BrokenAlgorithms, TreeRootThatDoesNotWaitForTheReductionIsCaught) {
  const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = 8, .size = 8000, .channels = 2, .chunks = 2};
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    StepExecution tree(spec, std::make_unique<ImpatientRoot>(spec));
    const SemanticsCheckResult result = check_semantics(tree, Algorithm::kTree, spec, seed);
    ASSERT_FALSE(result.ok) << "seed " << seed;
    // Either a partial sum reaches a member, or the root's buffer is read while still reducing.
    EXPECT_TRUE(result.description.find("all-reduce: member") != std::string::npos ||
                result.description.find("changed while the transfer was in flight") != std::string::npos)
        << result.description;
  }
}

}  // namespace
}  // namespace loom::collective
