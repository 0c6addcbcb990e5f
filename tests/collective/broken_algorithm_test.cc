// Deliberately broken algorithms: the semantics checker must catch each one, whatever the
// interleaving.
#include <functional>
#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loom/collective/completion_tracker.h"
#include "loom/collective/semantics_checker.h"

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
      if (t.src != 0 || t.tag != 1) continue;
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
        tracker_(spec.members, steps_, steps_) {}
  void start(Progress& out) override {
    const std::uint32_t n = spec_.members;
    for (std::uint32_t step = 0; step < steps_; ++step) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const bool reduce = spec_.op == CollectiveOp::kAllReduce && step < n - 1;
        const std::uint32_t back = reduce ? step + 1 : (step >= n - 1 ? step - (n - 1) : step);
        const std::uint32_t block = (i + n - back % n) % n;
        out.ready.push_back({.src = i, .dst = (i + 1) % n, .bytes = block_bytes(spec_, block), .block = block,
                             .action = reduce ? DataAction::kReduce : DataAction::kCopy, .tag = step});
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
                "transfer 0 -> 1 of block 4 (copy, 200 B, tag 1): member 0 does not hold block 4");
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
                "transfer 0 -> 1 of block 1 (reduce, 125 B, tag 0) was made ready twice");
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
    std::erase_if(out.ready, [](const Transfer& t) { return t.src == 2 && t.tag == 9; });
  });
  expect_caught(lossy, Algorithm::kRing, kAllReduce8, 1,
                "stalled: nothing in flight but the execution is not finished");
}

TEST(BrokenAlgorithms, WrongByteCountIsCaught) {
  Tampered padded(Algorithm::kRing, kAllReduce8, [](Progress& out) {
    for (Transfer& t : out.ready) t.bytes += 1;
  });
  expect_caught(padded, Algorithm::kRing, kAllReduce8, 1, "transfer 0 -> 1 of block 7 (reduce, 126 B, tag 0) carries 126 B; block 7 has 125 B");
}

TEST(BrokenAlgorithms, WrongTransferCountIsCaught) {
  // An all-to-all that also sends every member's block back to itself via the next member.
  const CollectiveSpec spec{.op = CollectiveOp::kAllToAll, .members = 4, .size = 400};
  Tampered chatty(Algorithm::kRing, spec, [](Progress& out) {
    const std::size_t count = out.ready.size();
    for (std::size_t i = 0; i < count; ++i) {
      Transfer extra = out.ready[i];
      extra.action = DataAction::kReduce;
      out.ready.push_back(extra);
    }
  });
  expect_caught(chatty, Algorithm::kRing, spec, 1, "more than the 12 transfers expected");
}

}  // namespace
}  // namespace loom::collective
