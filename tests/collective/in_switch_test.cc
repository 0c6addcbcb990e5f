// NVLS, NVLS-tree and in-network reduction: the symbolic checker proves the all-reduce
// postcondition with partial sums held at switches, broken variants are caught, and the
// timings on a contention-free fabric equal their closed forms.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "collective/timing_harness.h"
#include "loom/collective/block_layout.h"
#include "loom/collective/explain.h"
#include "loom/collective/reduction_tree.h"
#include "loom/collective/semantics_checker.h"
#include "loom/collective/tuner.h"
#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom::collective {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const GroupLayout> grid(std::uint32_t hosts, std::uint32_t per_host) {
  return std::make_shared<const GroupLayout>(regular_layout(hosts, per_host));
}

// A random aggregation tree: `switches` switches, switch s > 0 under a random switch below it
// (so switch 0 is the root), members on random switches, and every switch without a child
// given one member (members >= switches).
std::shared_ptr<const SwitchTree> random_tree(std::uint32_t members, std::uint32_t switches, std::uint64_t seed) {
  RandomStream rng(seed, "switch-tree");
  auto tree = std::make_shared<SwitchTree>();
  tree->parent.push_back(kNoSwitch);
  for (std::uint32_t s = 1; s < switches; ++s) {
    tree->parent.push_back(static_cast<std::uint32_t>(rng.uniform_int(0, s - 1)));
  }
  std::vector<bool> has_child(switches, false);
  for (std::uint32_t s = 1; s < switches; ++s) has_child[tree->parent[s]] = true;
  std::vector<std::uint32_t> childless;
  for (std::uint32_t s = 0; s < switches; ++s) {
    if (!has_child[s]) childless.push_back(s);
  }
  for (std::uint32_t m = 0; m < members; ++m) {
    tree->leaf.push_back(m < childless.size() ? childless[m]
                                              : static_cast<std::uint32_t>(rng.uniform_int(0, switches - 1)));
  }
  return tree;
}

// Leaves of `fan` members, `fan` switches under each switch above, `depth` switch tiers.
std::shared_ptr<const SwitchTree> balanced_tree(std::uint32_t fan, std::uint32_t depth) {
  auto tree = std::make_shared<SwitchTree>();
  // Tier t (0 = root) holds fan^t switches, numbered tier by tier.
  std::uint32_t first = 0;
  std::uint32_t width = 1;
  for (std::uint32_t t = 0; t < depth; ++t) {
    for (std::uint32_t i = 0; i < width; ++i) {
      tree->parent.push_back(t == 0 ? kNoSwitch : first - width / fan + i / fan);
    }
    first += width;
    width *= fan;
  }
  const std::uint32_t leaves = width / fan;
  for (std::uint32_t m = 0; m < leaves * fan; ++m) tree->leaf.push_back(first - leaves + m / fan);
  return tree;
}

void expect_proven(Algorithm algorithm, const CollectiveSpec& spec, std::uint64_t seed, const std::string& what) {
  const SemanticsCheckResult result = check_semantics(algorithm, spec, seed);
  ASSERT_TRUE(result.ok) << to_string(algorithm) << " " << what << " seed " << seed << ": " << result.description;
  EXPECT_EQ(result.bytes, expected_wire_bytes(algorithm, spec)) << what;
}

TEST(InSwitchSemantics, NvlsOnOneHostOfAnySize) {
  for (std::uint32_t n = 1; n <= 72; ++n) {
    for (const auto& [channels, chunks] : {std::pair{1u, 1u}, std::pair{3u, 2u}, std::pair{2u, 7u}}) {
      const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = 1'000'003,
                                .channels = channels, .chunks = chunks, .layout = grid(1, n)};
      expect_proven(Algorithm::kNvls, spec, n * 31 + chunks, fmt::format("n={} C={} K={}", n, channels, chunks));
    }
  }
}

TEST(InSwitchSemantics, NvlsTreeOverEveryHostShape) {
  for (std::uint32_t hosts = 1; hosts <= 9; ++hosts) {
    for (std::uint32_t per_host = 1; per_host <= 8; ++per_host) {
      for (const auto& [channels, chunks] : {std::pair{1u, 1u}, std::pair{4u, 3u}, std::pair{5u, 2u}}) {
        const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = hosts * per_host, .size = 100'003,
                                  .channels = channels, .chunks = chunks, .layout = grid(hosts, per_host)};
        expect_proven(Algorithm::kNvlsTree, spec, hosts * 97 + per_host * 7 + chunks,
                      fmt::format("{}x{} C={} K={}", hosts, per_host, channels, chunks));
      }
    }
  }
}

TEST(InSwitchSemantics, NvlsTreeFollowsAnIrregularLayout) {
  // Hosts of 3, 1 and 2 members, scattered: host 1's lone member reduces without its switch.
  auto layout = std::make_shared<GroupLayout>();
  layout->host = {2, 0, 1, 0, 2, 0};
  layout->local = {5, 1, 0, 7, 2, 3};
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = 6, .size = 6007,
                              .channels = static_cast<std::uint32_t>(seed % 7 + 1),
                              .chunks = static_cast<std::uint32_t>(seed % 3 + 1), .layout = layout};
    expect_proven(Algorithm::kNvlsTree, spec, seed, "irregular");
  }
  // Switches used: hosts 0 and 2 (more than one member): 2 (6 + 2 - 1) S.
  EXPECT_EQ(expected_wire_bytes(Algorithm::kNvlsTree,
                                {.op = CollectiveOp::kAllReduce, .members = 6, .size = 100, .layout = layout}),
            1400u);
}

TEST(InSwitchSemantics, InNetworkOverRandomAggregationTrees) {
  for (std::uint32_t n = 2; n <= 48; n += 3) {
    for (std::uint32_t switches = 1; switches <= n && switches <= 12; switches += 2) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = 77'777,
                                  .channels = static_cast<std::uint32_t>(seed), .chunks = 4 - static_cast<std::uint32_t>(seed),
                                  .switch_tree = random_tree(n, switches, seed * 1000 + n)};
        expect_proven(Algorithm::kInNetwork, spec, seed, fmt::format("n={} switches={}", n, switches));
      }
    }
  }
}

TEST(InSwitchSemantics, BarrierAndOneMember) {
  for (const Algorithm algorithm : {Algorithm::kNvls, Algorithm::kNvlsTree, Algorithm::kInNetwork}) {
    for (const std::uint32_t n : {1u, 2u, 8u}) {
      for (const CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kBarrier}) {
        const CollectiveSpec spec{.op = op, .members = n, .size = 4096, .channels = 2, .chunks = 2,
                                  .switch_tree = random_tree(n, 1, n)};
        expect_proven(algorithm, spec, n, std::string(to_string(op)));
      }
    }
  }
  const SemanticsCheckResult one = check_semantics(Algorithm::kNvls, {.members = 1, .size = 4096}, 1);
  EXPECT_EQ(one.transfers, 0u);
}

TEST(InSwitchSemantics, EndpointsAndVolumes) {
  const CollectiveSpec flat{.op = CollectiveOp::kAllReduce, .members = 8, .size = 1000};
  EXPECT_EQ(switch_count(Algorithm::kNvls, flat), 1u);
  EXPECT_EQ(switch_count(Algorithm::kRing, flat), 0u);
  EXPECT_EQ(switch_count(Algorithm::kInNetwork, flat), 0u);
  EXPECT_EQ(expected_wire_bytes(Algorithm::kNvls, flat), 16'000u);  // 8 up, 8 down
  CollectiveSpec hosts = flat;
  hosts.layout = grid(4, 2);
  EXPECT_EQ(switch_count(Algorithm::kNvlsTree, hosts), 4u);
  EXPECT_EQ(expected_wire_bytes(Algorithm::kNvlsTree, hosts), 2u * (8 + 4 - 1) * 1000);
  CollectiveSpec fabric = flat;
  fabric.switch_tree = balanced_tree(2, 3);  // 1 + 2 + 4 switches, 8 members
  EXPECT_EQ(switch_count(Algorithm::kInNetwork, fabric), 7u);
  EXPECT_EQ(expected_wire_bytes(Algorithm::kInNetwork, fabric), 2u * (8 + 7 - 1) * 1000);
  EXPECT_TRUE(uses_switches(Algorithm::kNvlsTree));
  EXPECT_FALSE(uses_switches(Algorithm::kHierarchical));
  EXPECT_TRUE(supports(Algorithm::kNvls, CollectiveOp::kBarrier));
  EXPECT_FALSE(supports(Algorithm::kNvls, CollectiveOp::kReduceScatter));
}

// Reduction trees: channel c of nvls-tree leaves each host through its member c % g.
TEST(ReductionTrees, NvlsTreeRotatesTheRepresentative) {
  const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = 12, .size = 1, .channels = 8,
                            .layout = grid(3, 4)};
  const std::vector<ReductionTree> trees = reduction_trees(Algorithm::kNvlsTree, spec);
  ASSERT_EQ(trees.size(), 4u);  // lcm(2, 4) shapes
  for (std::uint32_t c = 0; c < 4; ++c) {
    for (std::uint32_t h = 0; h < 3; ++h) {
      const std::uint32_t rep = h * 4 + c;
      EXPECT_EQ(trees[c].parent[12 + h], rep) << "switch of host " << h << " feeds member " << rep;
      for (std::uint32_t l = 0; l < 4; ++l) {
        if (l != c) {
          EXPECT_EQ(trees[c].parent[h * 4 + l], 12 + h);
        }
      }
    }
  }
}

// ---- Broken variants ----

bool same(const Transfer& a, const Transfer& b) {
  return a.src == b.src && a.dst == b.dst && a.block == b.block && a.blocks == b.blocks && a.piece == b.piece &&
         a.action == b.action && a.tag == b.tag && a.channel == b.channel;
}

// Passes a real in-switch execution's output through `tamper` before the checker sees it; the
// execution is told about completions in its own terms (the transfer it made, untampered).
class Tampered final : public Execution {
 public:
  Tampered(Algorithm algorithm, const CollectiveSpec& spec, std::function<void(Execution&, Progress&)> tamper)
      : inner_(make_execution(algorithm, spec)), tamper_(std::move(tamper)) {}
  void start(Progress& out) override {
    inner_->start(out);
    rewrite(out);
  }
  void on_done(const Transfer& done, Progress& out) override {
    Transfer original = done;
    for (auto it = rewritten_.begin(); it != rewritten_.end(); ++it) {
      if (!same(it->first, done)) continue;
      original = it->second;
      rewritten_.erase(it);
      break;
    }
    inner_->on_done(original, out);
    rewrite(out);
  }
  bool finished() const override { return inner_->finished(); }

 private:
  void rewrite(Progress& out) {
    const std::vector<Transfer> before = out.ready;
    tamper_(*inner_, out);
    for (std::size_t i = 0; i < before.size() && i < out.ready.size(); ++i) {
      if (!same(before[i], out.ready[i])) rewritten_.emplace_back(out.ready[i], before[i]);
    }
  }
  std::unique_ptr<Execution> inner_;
  std::function<void(Execution&, Progress&)> tamper_;
  std::vector<std::pair<Transfer, Transfer>> rewritten_;  // (as the checker sees it, as made)
};

const CollectiveSpec kNvls8{.op = CollectiveOp::kAllReduce, .members = 8, .size = 8000, .chunks = 2};

void expect_caught(Execution& execution, Algorithm algorithm, const CollectiveSpec& spec, std::uint64_t seed,
                   const std::string& expected) {
  const SemanticsCheckResult result = check_semantics(execution, algorithm, spec, seed);
  EXPECT_FALSE(result.ok) << "seed " << seed;
  EXPECT_THAT(result.description, HasSubstr(expected)) << "seed " << seed;
}

TEST(InSwitchBroken, MulticastThatReducesIntoTheReceiverIsCaught) {
  // The switch's result added to what each member holds counts the member itself twice.
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Tampered adding(Algorithm::kNvls, kNvls8, [](Execution&, Progress& out) {
      for (Transfer& t : out.ready) {
        if (t.src == 8) t.action = DataAction::kReduce;
      }
    });
    expect_caught(adding, Algorithm::kNvls, kNvls8, seed, "expected each of members 0..7 once");
  }
}

TEST(InSwitchBroken, SwitchThatMissesAContributionIsCaught) {
  // Member 3's pushes are acknowledged but never sent: the switch multicasts a sum without 3
  // (or, when the stray acknowledgement lets it start early, overwrites what it is sending).
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Tampered dropping(Algorithm::kNvls, kNvls8, [](Execution& inner, Progress& out) {
      for (std::size_t i = 0; i < out.ready.size(); ++i) {
        if (out.ready[i].src != 3 || out.ready[i].dst != 8) continue;
        const Transfer dropped = out.ready[i];
        out.ready.erase(out.ready.begin() + static_cast<std::ptrdiff_t>(i));
        inner.on_done(dropped, out);
        return;
      }
    });
    const SemanticsCheckResult result = check_semantics(dropping, Algorithm::kNvls, kNvls8, seed);
    ASSERT_FALSE(result.ok);
    EXPECT_TRUE(result.description.find("expected each of members 0..7 once") != std::string::npos ||
                result.description.find("changed while the transfer was in flight") != std::string::npos ||
                result.description.find("byte conservation") != std::string::npos)
        << result.description;
  }
}

TEST(InSwitchBroken, RepresentativePushingItsOwnDataThroughTheSwitchIsCaught) {
  // An NVLS-tree whose host switch adds the representative's data too (a reduce from the
  // representative to the switch): the representative's contribution arrives twice.
  const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = 8, .size = 800, .layout = grid(2, 4)};
  Tampered doubling(Algorithm::kNvlsTree, spec, [](Execution&, Progress& out) {
    for (Transfer& t : out.ready) {
      // The first push of host 0 (member 1 -> its switch) goes from the representative instead.
      if (t.src == 1 && t.dst == 8) t.src = 0;
    }
  });
  expect_caught(doubling, Algorithm::kNvlsTree, spec, 1, "ends with block");
}

TEST(InSwitchBroken, SwitchSendingWhatItDoesNotHoldIsCaught) {
  // NVLS-tree over hosts of one member never uses their switches, which therefore hold nothing:
  // member 0's push up the host tree, redirected to come from its host's switch, is caught.
  const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = 2, .size = 200, .layout = grid(2, 1)};
  Tampered wrong(Algorithm::kNvlsTree, spec, [](Execution&, Progress& out) {
    for (Transfer& t : out.ready) {
      if (t.src == 0 && t.dst == 1) t.src = 2;
    }
  });
  expect_caught(wrong, Algorithm::kNvlsTree, spec, 1,
                "transfer 2 -> 1 of blocks 0..1 piece 0 (reduce, 200 B, tag 0): switch 0 (endpoint 2) does not hold "
                "block 0 piece 0");
}

TEST(InSwitchBroken, EndpointBeyondTheSwitchesIsMalformed) {
  Tampered stray(Algorithm::kNvls, kNvls8, [](Execution&, Progress& out) {
    if (!out.ready.empty()) out.ready.front().dst = 9;
  });
  expect_caught(stray, Algorithm::kNvls, kNvls8, 1, "on 8 members, 1 switches, 2 pieces");
}

// ---- Timing on a contention-free fabric: every transfer alpha + bytes * beta ----

constexpr std::uint64_t kAlpha = 1'000'000;  // 1 us
constexpr std::uint64_t kBeta = 10;          // ps per byte

TEST(InSwitchTiming, NvlsTakesKPlusOneStages) {
  for (const std::uint32_t n : {2u, 5u, 8u}) {
    for (const auto& [channels, chunks] : {std::pair{1u, 1u}, std::pair{2u, 4u}, std::pair{3u, 8u}}) {
      const Bytes size = Bytes{n} * channels * chunks * 1000;
      const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = size, .channels = channels,
                                .chunks = chunks};
      const harness::Timing timing = harness::run_timed(Algorithm::kNvls, spec, kAlpha, kBeta);
      const std::uint64_t stage = kAlpha + size / (channels * chunks) * kBeta;
      EXPECT_EQ(timing.end_ps, (chunks + 1) * stage) << n << " " << channels << "x" << chunks;
      EXPECT_EQ(timing.transfers, 2ull * n * channels * chunks);
    }
  }
}

TEST(InSwitchTiming, InNetworkTakesTwoDepthsPlusKMinusOneStages) {
  for (const std::uint32_t depth : {1u, 2u, 3u}) {
    for (const std::uint32_t chunks : {1u, 2u, 5u}) {
      // fan 3: 3^depth members, each depth edges below the root.
      const auto tree = balanced_tree(3, depth);
      const auto n = static_cast<std::uint32_t>(tree->leaf.size());
      const Bytes size = Bytes{n} * chunks * 600;
      const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = size, .chunks = chunks,
                                .switch_tree = tree};
      const harness::Timing timing = harness::run_timed(Algorithm::kInNetwork, spec, kAlpha, kBeta);
      const std::uint64_t stage = kAlpha + size / chunks * kBeta;
      EXPECT_EQ(timing.end_ps, (2 * depth + chunks - 1) * stage) << "depth " << depth << " chunks " << chunks;
    }
  }
}

TEST(InSwitchTiming, NvlsTreeTakesFourPlusTwoTreeDepthsPlusKMinusOneStages) {
  // Member -> switch -> representative, floor(log2 hosts) tree levels, and back.
  for (const std::uint32_t hosts : {2u, 3u, 4u, 8u}) {
    for (const std::uint32_t chunks : {1u, 3u}) {
      const std::uint32_t n = hosts * 4;
      const Bytes size = Bytes{n} * 2 * chunks * 100;
      const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = size, .channels = 2,
                                .chunks = chunks, .layout = grid(hosts, 4)};
      const harness::Timing timing = harness::run_timed(Algorithm::kNvlsTree, spec, kAlpha, kBeta);
      std::uint64_t levels = 0;
      while ((2u << levels) <= hosts) ++levels;
      const std::uint64_t stage = kAlpha + size / (2 * chunks) * kBeta;
      EXPECT_EQ(timing.end_ps, (4 + 2 * levels + chunks - 1) * stage) << hosts << " hosts, " << chunks << " chunks";
    }
  }
}

// ---- Validation ----

TEST(InSwitchErrors, SpecsThatDoNotFitAreUserErrors) {
  const auto message = [](Algorithm algorithm, const CollectiveSpec& spec) {
    try {
      make_execution(algorithm, spec);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(Algorithm::kNvls, {.members = 8, .size = 1, .layout = grid(2, 4)}),
            "nvls reduces inside one scale-up switch, but the 8 members span 2 hosts; expected one host (nvls-tree "
            "spans hosts)");
  EXPECT_EQ(message(Algorithm::kInNetwork, {.members = 4, .size = 1}),
            "in-network needs the aggregation switches (CollectiveSpec::switch_tree, which the runtime builds from the "
            "topology); none were given");
  EXPECT_THAT(message(Algorithm::kNvls, {.op = CollectiveOp::kAllGather, .members = 4, .size = 1}),
              HasSubstr("the nvls algorithm does not implement all-gather"));
  auto tree = std::make_shared<SwitchTree>(SwitchTree{.leaf = {0, 1, 1}, .parent = {kNoSwitch, 2, 1}});
  EXPECT_EQ(message(Algorithm::kInNetwork, {.members = 3, .size = 1, .switch_tree = tree}),
            "switch tree: the parents of switch 1 form a cycle; expected them to reach the root");
}

TEST(InSwitchErrors, SwitchTreeInvariants) {
  const auto message = [](SwitchTree tree, std::uint32_t members) {
    try {
      check_switch_tree(tree, members);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({.leaf = {0, 0}, .parent = {kNoSwitch}}, 2), "no error");
  EXPECT_EQ(message({.leaf = {0}, .parent = {kNoSwitch}}, 2),
            "switch tree: 1 leaf entries for 2 members; expected one per member");
  EXPECT_EQ(message({.leaf = {0, 3}, .parent = {kNoSwitch}}, 2),
            "switch tree: member 1 sends to switch 3; expected a switch below 1");
  EXPECT_EQ(message({.leaf = {0, 0}, .parent = {kNoSwitch, kNoSwitch}}, 2),
            "switch tree: 2 switches without a parent; expected one root");
  EXPECT_EQ(message({.leaf = {0, 0}, .parent = {kNoSwitch, 0}}, 2),
            "switch tree: switch 1 has no member or switch below it; expected every switch to take part");
  EXPECT_EQ(message({.leaf = {0, 0}, .parent = {kNoSwitch, 1}}, 2),
            "switch tree: switch 1 has parent 1; expected another switch below 2 or none");
  EXPECT_EQ(message({.leaf = {}, .parent = {}}, 0), "switch tree: no switches; expected at least a root switch");
}

// ---- Tuner ----

TunerQuery all_reduce_query(Bytes size, std::uint32_t members, std::uint32_t hosts, std::string_view gpu) {
  return {.op = CollectiveOp::kAllReduce, .size = size, .members = members, .hosts = hosts, .gpu = &gpu_model(gpu)};
}

TEST(InSwitchTuner, H100PicksNvlsForLargeAllReducesAndRingOrTreeForSmallOnes) {
  const TunerChoice large = tune(all_reduce_query(Bytes{1} << 30, 8, 1, "h100"));
  EXPECT_EQ(large.algorithm, Algorithm::kNvls);
  EXPECT_EQ(large.protocol, Protocol::kSimple);
  // Modelled busbw approaches the 480 GB/s nccl-tests measures with NVLS on 8xH100 (FACTS §5),
  // above the ring's 370.
  const double busbw = static_cast<double>(Bytes{1} << 30) / large.seconds * 1.75 * 1e-9;
  EXPECT_GT(busbw, 440.0);
  EXPECT_LT(busbw, 480.0);
  const TunerChoice small = tune(all_reduce_query(4096, 8, 1, "h100"));
  EXPECT_TRUE(small.algorithm == Algorithm::kRing || small.algorithm == Algorithm::kTree);
  // Where NVLS starts to win: between 1 MiB and 256 MiB.
  EXPECT_NE(tune(all_reduce_query(1 << 20, 8, 1, "h100")).algorithm, Algorithm::kNvls);
  EXPECT_EQ(tune(all_reduce_query(256 << 20, 8, 1, "h100")).algorithm, Algorithm::kNvls);
}

TEST(InSwitchTuner, NvlsOnlyWhereTheGenerationAndTopologyHaveIt) {
  for (const TunerChoice& c : tuner_candidates(all_reduce_query(Bytes{1} << 30, 8, 1, "a100"))) {
    EXPECT_FALSE(uses_switches(c.algorithm)) << "A100's NVSwitch does not reduce";
  }
  TunerQuery off = all_reduce_query(Bytes{1} << 30, 8, 1, "h100");
  off.in_switch = false;
  for (const TunerChoice& c : tuner_candidates(off)) EXPECT_FALSE(uses_switches(c.algorithm));
  bool nvls = false;
  bool nvls_tree = false;
  for (const TunerChoice& c : tuner_candidates(all_reduce_query(Bytes{1} << 30, 32, 4, "h100"))) {
    nvls = nvls || c.algorithm == Algorithm::kNvls;
    nvls_tree = nvls_tree || c.algorithm == Algorithm::kNvlsTree;
    EXPECT_NE(c.algorithm, Algorithm::kInNetwork);
  }
  EXPECT_FALSE(nvls);  // one scale-up domain only
  EXPECT_TRUE(nvls_tree);
  // Other operations never get NVLS candidates.
  for (const TunerChoice& c : tuner_candidates({.op = CollectiveOp::kAllGather, .size = Bytes{1} << 30, .members = 8,
                                                .hosts = 1, .gpu = &gpu_model("h100")})) {
    EXPECT_FALSE(uses_switches(c.algorithm));
  }
}

TEST(InSwitchTuner, ExplainPrintsTheNvlsChoiceAndItsTime) {
  const std::string text = explain(all_reduce_query(Bytes{1} << 30, 8, 1, "h100"), 3);
  EXPECT_THAT(text, HasSubstr("all-reduce of 1GiB on 8 ranks (1 host x 8), GPU h100\nchoice: nvls, simple, "));
  EXPECT_THAT(text, HasSubstr("  nvls              simple"));
}

}  // namespace
}  // namespace loom::collective
