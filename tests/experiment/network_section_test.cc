// The network section through the experiment loader: link changes, and every flow and packet
// parameter declared in its table (network_parameter_catalog) is read and range-checked.
#include "loom/experiment/network_section.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.h"
#include "loom/experiment/experiment.h"
#include "user_error.h"
#include "fixtures.h"

namespace loom::experiment {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

Experiment load_text(const std::string& text, const std::vector<std::string>& overrides = {}) {
  config::Document document = config::Document::parse(text, "exp.yaml");
  for (const auto& o : overrides) document.apply_override(o);
  return load(document);
}

constexpr const char* kSmall =
    "topology: {hosts: 2}\nworkload: {type: microbenchmark, collectives: [{op: all-reduce, size: 1MiB}]}\n";

std::string load_error(const std::string& text, const std::vector<std::string>& overrides) {
  return loom::testing::user_error_of([&] { load_text(text, overrides); });
}

// Two single-GPU hosts on two leaves, joined by `spines` spines of 200 Gb/s each; a 64 MiB
// ring all-reduce over 8 queue pairs per transfer, in flow mode.
std::string two_leaves(int spines, const std::string& network_extra = "") {
  return fmt::format(R"(
topology: {{blueprint: leaf-spine, hosts: 2, hosts_per_leaf: 1, spines: {}, links_per_pair: 1, gpus_per_host: 1,
           spine_link_bandwidth: 200Gbps}}
workload: {{type: microbenchmark, collectives: [{{op: all-reduce, size: 64MiB}}]}}
collective: {{algorithm: ring}}
network: {{mode: flow, flow: {{queue_pairs: 8}}{}}}
output: {{dir: {}, flows: false, timeline: false, links: false}}
)",
                     spines, network_extra,
                     (std::filesystem::temp_directory_path() / "loom_network_section_test").string());
}

// With spine.0's cable to leaf.0 down from the start, every queue pair crosses spine.1: the run
// takes exactly as long as on a fabric with one spine, and longer than with both.
TEST(NetworkSection, LinkFailureReroutesAndTheCollectiveFinishesLater) {
  const Time both = run(load_text(two_leaves(2))).result.makespan;
  const Time one = run(load_text(two_leaves(1))).result.makespan;
  const Experiment failed =
      load_text(two_leaves(2, ", link_changes: [{at: 0us, between: [leaf.0, spine.0], state: down}]"));
  ASSERT_EQ(failed.network.link_changes.size(), 1u);
  EXPECT_FALSE(failed.network.link_changes[0].up);
  const Time rerouted = run(failed).result.makespan;
  EXPECT_EQ(rerouted, one);
  EXPECT_GT(rerouted, both);
  // Brought back at once, the cable is used again by the transfers that start afterwards (the
  // ring's later steps), not by those it moved: the run lies between the two.
  const Time recovered = run(load_text(two_leaves(
      2, ", link_changes: [{at: 0us, between: [leaf.0, spine.0], state: down},"
         " {at: 0us, between: [leaf.0, spine.0], state: up}]"))).result.makespan;
  EXPECT_GT(recovered, both);
  EXPECT_LT(recovered, one);
}

TEST(NetworkSection, LinkChangesNameWhatIsWrong) {
  const auto error = [](const std::string& change) {
    return load_error(two_leaves(2, ", link_changes: [" + change + "]"), {});
  };
  EXPECT_THAT(error("{at: 1us, between: [leaf.0, spin.0], state: down}"),
              HasSubstr("network.link_changes[0].between: no node named 'spin.0' in the topology; did you mean "
                        "'spine.0'?"));
  EXPECT_THAT(error("{at: 1us, between: [leaf.0, leaf.1], state: down}"),
              HasSubstr("network.link_changes[0].between: no cable joins leaf.0 and leaf.1"));
  EXPECT_THAT(error("{at: 1us, between: [leaf.0, spine.0], cable: 1, state: down}"),
              HasSubstr("network.link_changes[0].cable: leaf.0 and spine.0 are joined by 1 cable(s), numbered from "
                        "0; got 1"));
  EXPECT_THAT(error("{at: 1us, between: [leaf.0, spine.0], state: broken}"),
              HasSubstr("network.link_changes[0].state: unknown value 'broken'"));
  EXPECT_THAT(error("{at: 1us, between: [leaf.0], state: down}"),
              HasSubstr("network.link_changes[0].between: expected two node names, got 1"));
  EXPECT_THAT(error("{at: 1us, between: [leaf.0, spine.0], state: down, when: 3}"),
              HasSubstr("unknown key 'when'"));
}

// A value just outside a parameter's declared range, in the text a file takes; empty when the
// range has no outside (a flag, a choice, a bandwidth that may be zero).
// A derived time's range ends in "or 'WORD'" (its zero); the interval is what precedes it.
std::string outside(const ParamEntry& entry) {
  ParamEntry p = entry;
  p.range = p.range.substr(0, p.range.find(" or '"));
  if (p.unit == "count") {
    const auto lo = std::stoull(p.range.substr(1));
    return lo > 0 ? std::to_string(lo - 1) : std::to_string(std::stoull(p.range.substr(p.range.find(", ") + 2)) + 1);
  }
  if (p.unit == "size") {
    const Bytes lo = parse_size(p.range.substr(1, p.range.find(',') - 1));
    const Bytes hi = parse_size(p.range.substr(p.range.find(", ") + 2, p.range.size() - p.range.find(", ") - 3));
    return lo > 0 ? fmt::format("{}B", lo - 1) : fmt::format("{}B", hi + 1);
  }
  if (p.unit == "time") {
    const Time lo = parse_time(p.range.substr(1, p.range.find(',') - 1));
    const Time hi = parse_time(p.range.substr(p.range.find(", ") + 2, p.range.size() - p.range.find(", ") - 3));
    return lo > Time::zero() ? fmt::format("{}ps", (lo - Time::ps(1)).picoseconds())
                             : fmt::format("{}ps", (hi + Time::ps(1)).picoseconds());
  }
  if (p.unit == "real") {
    const double lo = std::stod(p.range.substr(1));
    return p.range[0] == '(' ? fmt::format("{}", lo) : fmt::format("{}", lo - 1);
  }
  if (p.unit == "bandwidth" && p.range == "> 0") return "0bps";
  return "";
}

// Every scalar parameter of the flow and packet tables: a value outside its range is refused at
// its --set with the key and the allowed range.
TEST(NetworkSection, EveryParameterRejectsAValueOutsideItsRange) {
  int checked = 0;
  for (const network::NetworkMode mode : {network::NetworkMode::kFlow, network::NetworkMode::kPacket}) {
    const std::string section = fmt::format("network.{}", network::to_string(mode));
    for (const ParamEntry& p : network_parameter_catalog(mode)) {
      if (p.key.find("[]") != std::string::npos) continue;  // list items: NetworkSection.RecordLists...
      const std::string bad = outside(p);
      if (bad.empty()) continue;
      const std::string set = fmt::format("{}.{}={}", section, p.key, bad);
      const std::string error =
          load_error(kSmall, {fmt::format("network.mode={}", network::to_string(mode)), set});
      EXPECT_THAT(error, StartsWith(fmt::format("--set {}: {}.{}: ", set, section, p.key))) << p.key;
      if (p.unit == "bandwidth") {
        EXPECT_THAT(error, HasSubstr("must be positive")) << p.key;
      } else if (p.unit == "real") {
        EXPECT_THAT(error, HasSubstr("must be in " + p.range)) << p.key;
      } else {
        const std::string range = p.range.substr(0, p.range.find(" or '"));
        const std::string between = range.substr(1, range.size() - 2);
        EXPECT_THAT(error, HasSubstr("must be between " + between.substr(0, between.find(',')) + " and " +
                                     between.substr(between.find(", ") + 2)))
            << p.key;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 51);  // every count, size, time, real and positive bandwidth of both tables
}

// Every parameter reaches the parameters the backend gets: a value inside the range, set
// through the file, is the value loaded.
TEST(NetworkSection, PacketKeysReachTheBackendParameters) {
  const Experiment e = load_text(kSmall, {
      "network.mode=packet", "network.packet.cc=hpcc", "network.packet.hpcc.eta=0.9",
      "network.packet.dcqcn.increase_timer=300us", "network.packet.pfc_thresholds.alpha_shift=2",
      "network.packet.ecn_thresholds.per_speed=[{speed: 400Gbps, kmin: 100KB, kmax: 400KB, pmax: 0.5}]",
      "network.packet.tier_buffers=[{tier: 1, buffer: 64MiB}]", "network.packet.classes.weights=[3, 1]",
      "network.packet.ack_bytes=64B", "network.packet.monitor.max_rows=10"});
  const network::packet::PacketParams& p = e.network.params.packet;
  EXPECT_EQ(p.cc.kind, network::packet::CcKind::kHpcc);
  EXPECT_EQ(p.cc.hpcc.eta, 0.9);
  EXPECT_EQ(p.cc.dcqcn.increase_timer, Time::us(300));
  EXPECT_EQ(p.sw.alpha_shift, 2u);
  ASSERT_EQ(p.sw.ecn_table.size(), 1u);
  EXPECT_EQ(p.sw.ecn_table[0].speed, Bandwidth::gbps(400));
  EXPECT_EQ(p.sw.ecn_table[0].kmin, 100'000u);
  EXPECT_EQ(p.sw.ecn_table[0].kmax, 400'000u);
  EXPECT_EQ(p.sw.ecn_table[0].pmax, 0.5);
  ASSERT_EQ(p.sw.tier_buffers.size(), 1u);
  EXPECT_EQ(p.sw.tier_buffers[0].tier, 1u);
  EXPECT_EQ(p.sw.tier_buffers[0].bytes, Bytes{64} << 20);
  EXPECT_EQ(p.sw.class_weights[1], 3u);
  EXPECT_EQ(p.sw.class_weights[2], 1u);
  EXPECT_EQ(p.nic.ack_bytes, 64u);
  EXPECT_EQ(p.monitor.max_rows, 10u);
}

TEST(NetworkSection, RecordListsAndCrossFieldChecksAreLocated) {
  const std::vector<std::string> packet = {"network.mode=packet"};
  const auto error = [&](const std::string& set) {
    std::vector<std::string> overrides = packet;
    overrides.push_back(set);
    return load_error(kSmall, overrides);
  };
  EXPECT_THAT(error("network.packet.tier_buffers=[{tier: 1, buffer: 0B}]"),
              HasSubstr("network.packet.tier_buffers[0].buffer: must be between 1B and 1TiB, got 0B"));
  EXPECT_THAT(error("network.packet.tier_buffers=[{tier: 1, bufer: 1MiB}]"), HasSubstr("unknown key 'bufer'"));
  EXPECT_THAT(error("network.packet.ecn_thresholds.per_speed=[{speed: 100Gbps, kmin: 4KB, kmax: 2KB, pmax: 0.1}]"),
              HasSubstr("switch.ecn_table kmax"));
  EXPECT_THAT(error("network.packet.classes.weights=[1, 2, 3, 4, 5, 6, 7, 8]"),
              HasSubstr("network.packet.classes.weights: lists 8 values, expected at most 7"));
  EXPECT_THAT(error("network.packet.classes.weights=[1, 0]"),
              HasSubstr("network.packet.classes.weights: value 2 must be between 1 and 1024, got 0"));
  EXPECT_THAT(error("network.packet.timely.t_high=10us"), HasSubstr("cc.timely.t_high"));
}

// The per-tier buffer reaches the switches: a spine buffer smaller than its PFC headroom is
// refused naming a spine, while the leaves keep the default.
TEST(NetworkSection, TierBuffersReachTheSwitchesOfThatTier) {
  const std::string text = R"(
topology: {blueprint: leaf-spine, hosts: 2, hosts_per_leaf: 1, spines: 1, links_per_pair: 1, gpus_per_host: 1}
workload: {type: microbenchmark, collectives: [{op: all-reduce, size: 1MiB}]}
network: {mode: packet, packet: {tier_buffers: [{tier: 1, buffer: 1KiB}]}}
output: {flows: false, timeline: false}
)";
  try {
    run(load_text(text, {"output.dir=" + (std::filesystem::temp_directory_path() / "loom_tier_buffers").string()}));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("packet backend: switch buffer = 1024 at node spine.0"));
  }
}

const std::string kSimaiConf = loom::testing::fixture_path("simai/inputs/config/SimAI.conf").string();

std::string packet_experiment(const std::string& packet) {
  return std::string(kSmall) + "network: {mode: packet, packet: {" + packet + "}}\n";
}

// The keys of a SimAI.conf, in file order.
std::vector<std::string> keys_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> keys;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key;
    if (words >> key) keys.push_back(key);
  }
  return keys;
}

// The NIC window follows the congestion control when the experiment leaves it unset (HPCC's
// run.py: dcqcn and timely rate-only, hpcc and dctcp with the window; none keeps it), an explicit
// value wins, SimAI's profile sets it (SimAI.conf: HAS_WIN 1), and the effective configuration
// records the value in force.
TEST(NetworkSection, TheWindowDefaultsPerCongestionControlAndAnExplicitValueWins) {
  const auto window = [](const std::string& packet) {
    const Experiment e = load_text(packet_experiment(packet));
    const network::packet::PacketParams& p = e.network.params.packet;
    const nlohmann::json& effective = e.effective_config["network"]["packet"];
    EXPECT_EQ(effective["window"].get<bool>(), p.window_on()) << packet;
    EXPECT_EQ(effective["variable_window"].get<bool>(), p.variable_window_on()) << packet;
    EXPECT_EQ(p.window_on(), p.variable_window_on()) << packet;
    return p.window_on();
  };
  EXPECT_FALSE(window(""));  // dcqcn
  EXPECT_FALSE(window("cc: dcqcn"));
  EXPECT_FALSE(window("cc: timely"));
  EXPECT_TRUE(window("cc: hpcc"));
  EXPECT_TRUE(window("cc: dctcp"));
  EXPECT_TRUE(window("cc: none"));
  EXPECT_TRUE(window("cc: dcqcn, window: true, variable_window: true"));
  EXPECT_FALSE(window("cc: hpcc, window: false, variable_window: false"));
  EXPECT_TRUE(window("profile: simai"));
  EXPECT_TRUE(window("profile: simai, cc: timely"));  // the file's HAS_WIN 1 is explicit
  // Code that builds the parameters without a file gets the same defaults.
  network::packet::PacketParams p;
  EXPECT_FALSE(p.window_on());
  p.cc.kind = network::packet::CcKind::kHpcc;
  EXPECT_TRUE(p.window_on());
}

// SimAI's own SimAI.conf: every key either sets a packet parameter (checked here one by one) or
// is named in the warning of keys without effect; none is dropped silently.
TEST(NetworkSection, SimaiConfSetsEveryPacketKeyAndNamesTheRest) {
  LOOM_SKIP_WITHOUT_FIXTURE(kSimaiConf);
  const Experiment e = load_text(packet_experiment("profile: simai, simai_conf: " + kSimaiConf));
  const network::packet::PacketParams& p = e.network.params.packet;
  EXPECT_EQ(p.nic.mtu, 9000u);                                    // PACKET_PAYLOAD_SIZE
  EXPECT_EQ(p.cc.kind, network::packet::CcKind::kDcqcn);          // CC_MODE 1
  EXPECT_TRUE(p.sw.ecn);                                          // ENABLE_QCN
  EXPECT_EQ(p.cc.dcqcn.alpha_interval, Time::us(1));              // ALPHA_RESUME_INTERVAL
  EXPECT_EQ(p.cc.dcqcn.decrease_interval, Time::us(4));           // RATE_DECREASE_INTERVAL
  EXPECT_FALSE(p.cc.dcqcn.clamp_target_rate);                     // CLAMP_TARGET_RATE
  EXPECT_EQ(p.cc.dcqcn.increase_timer, Time::us(900));            // RP_TIMER
  EXPECT_EQ(p.cc.dcqcn.g, 0.00390625);                            // EWMA_GAIN
  EXPECT_EQ(p.cc.dcqcn.fast_recovery_stages, 1u);                 // FAST_RECOVERY_TIMES
  EXPECT_EQ(p.cc.dcqcn.rate_ai, Bandwidth::bits_per_second(50'000'000));             // RATE_AI
  EXPECT_EQ(p.cc.dcqcn.rate_hai, Bandwidth::bits_per_second(100'000'000));           // RATE_HAI
  EXPECT_EQ(p.cc.min_rate, Bandwidth::bits_per_second(100'000'000));                 // MIN_RATE
  EXPECT_EQ(p.cc.dctcp.rate_ai, Bandwidth::bits_per_second(1000'000'000));           // DCTCP_RATE_AI
  EXPECT_EQ(p.link_error_rate, 0.0);                              // ERROR_RATE_PER_LINK
  EXPECT_EQ(p.nic.ack_interval, 1u);                              // L2_ACK_INTERVAL
  EXPECT_TRUE(p.window_on());                                      // HAS_WIN
  EXPECT_TRUE(p.variable_window_on());                             // VAR_WIN
  EXPECT_TRUE(p.cc.hpcc.fast_react);                              // FAST_REACT
  EXPECT_EQ(p.cc.hpcc.eta, 0.95);                                 // U_TARGET
  EXPECT_EQ(p.cc.hpcc.max_stage, 0u);                             // MI_THRESH
  EXPECT_EQ(p.cc.hpcc.int_byte_unit, 128u);                       // INT_MULTI 1
  EXPECT_FALSE(p.nic.ack_high_priority);                          // ACK_HIGH_PRIO
  EXPECT_EQ(p.sw.buffer_bytes, Bytes{32} << 20);                  // BUFFER_SIZE
  ASSERT_EQ(p.sw.ecn_table.size(), 6u);                           // KMIN_MAP, KMAX_MAP, PMAX_MAP
  const network::packet::EcnSetting& at200 = p.sw.ecn_table[3];
  EXPECT_EQ(at200.speed, Bandwidth::gbps(200));
  EXPECT_EQ(at200.kmin, 300'000u);
  EXPECT_EQ(at200.kmax, 1'200'000u);
  EXPECT_EQ(at200.pmax, 0.8);
  // Checked above, or a constraint Loom always meets (USE_DYNAMIC_PFC_THRESHOLD 1, MULTI_RATE 0,
  // SAMPLE_FEEDBACK 0, RATE_BOUND 1, LINK_DOWN 0 0 0: another value is an error).
  const std::set<std::string> applied = {
      "ENABLE_QCN", "USE_DYNAMIC_PFC_THRESHOLD", "PACKET_PAYLOAD_SIZE", "CC_MODE", "ALPHA_RESUME_INTERVAL",
      "RATE_DECREASE_INTERVAL", "CLAMP_TARGET_RATE", "RP_TIMER", "EWMA_GAIN", "FAST_RECOVERY_TIMES", "RATE_AI",
      "RATE_HAI", "MIN_RATE", "DCTCP_RATE_AI", "ERROR_RATE_PER_LINK", "L2_ACK_INTERVAL", "HAS_WIN", "VAR_WIN",
      "FAST_REACT", "U_TARGET", "MI_THRESH", "INT_MULTI", "MULTI_RATE", "SAMPLE_FEEDBACK", "RATE_BOUND",
      "ACK_HIGH_PRIO", "LINK_DOWN", "KMAX_MAP", "KMIN_MAP", "PMAX_MAP", "BUFFER_SIZE"};
  std::vector<std::string> without_effect;
  for (const std::string& key : keys_of(kSimaiConf)) {
    if (!applied.count(key)) without_effect.push_back(key);
  }
  ASSERT_EQ(e.warnings.size(), 1u);
  EXPECT_EQ(e.warnings[0], fmt::format("network.packet.profile: SimAI keys without effect in an experiment: {}",
                                       fmt::join(without_effect, ", ")));
}

// profile: simai alone is SimAI's shipped settings; keys of the experiment override them.
TEST(NetworkSection, SimaiProfileDefaultsAndOverrides) {
  const Experiment defaults = load_text(packet_experiment("profile: simai"));
  EXPECT_EQ(defaults.network.params.packet.nic.mtu, 9000u);
  EXPECT_EQ(defaults.network.params.packet.sw.ecn_table.size(), 6u);
  EXPECT_TRUE(defaults.warnings.empty());
  if (std::filesystem::exists(kSimaiConf)) {
    const Experiment file = load_text(packet_experiment("profile: simai, simai_conf: " + kSimaiConf));
    EXPECT_EQ(file.effective_config["network"]["packet"].dump(),
              [&] {
                nlohmann::json j = defaults.effective_config["network"]["packet"];
                j["simai_conf"] = kSimaiConf;
                return j.dump();
              }());
  }
  const Experiment overridden = load_text(packet_experiment("profile: simai, mtu: 4000B, dcqcn: {g: 0.5}"));
  EXPECT_EQ(overridden.network.params.packet.nic.mtu, 4000u);
  EXPECT_EQ(overridden.network.params.packet.cc.dcqcn.g, 0.5);
  EXPECT_EQ(overridden.network.params.packet.sw.ecn_table.size(), 6u);
  EXPECT_THAT(load_error(packet_experiment("simai_conf: x.conf"), {}),
              HasSubstr("network.packet.simai_conf: applies to profile: simai only"));
  const auto bad = std::filesystem::temp_directory_path() / "loom_bad_simai.conf";
  std::ofstream(bad) << "CC_MODE 1\nNVLS_MAGIC 3\n";
  EXPECT_THAT(load_error(packet_experiment("profile: simai, simai_conf: " + bad.string()), {}),
              HasSubstr("loom_bad_simai.conf:2: NVLS_MAGIC 3: expected a key of HPCC's config.txt"));
}

// Fast-forward on rate-only DCQCN is not yet within the full run's own spread: with DCQCN's
// rate-only default it warns, once, and with the window or another CC it does not.
TEST(NetworkSection, FastForwardOnRateOnlyDcqcnWarns) {
  const auto warnings = [](const std::string& packet) {
    std::size_t count = 0;
    for (const std::string& w : load_text(packet_experiment(packet)).warnings) {
      count += w.find("fast-forward errs up to about 0.5%") != std::string::npos ? 1 : 0;
    }
    return count;
  };
  EXPECT_EQ(warnings("fast_forward: {enabled: true}"), 1u);
  EXPECT_EQ(warnings("cc: dcqcn, fast_forward: {enabled: true}"), 1u);
  EXPECT_EQ(warnings("cc: dcqcn, window: true, fast_forward: {enabled: true}"), 0u);
  EXPECT_EQ(warnings("cc: hpcc, fast_forward: {enabled: true}"), 0u);
  EXPECT_EQ(warnings("cc: dcqcn"), 0u);
}

// The sampling interval derived from the line rate is echoed as words, not as "0ps", and an
// echoed configuration loads back to the same parameters and the same echo.
TEST(NetworkSection, TheDerivedIntervalEchoesItsWordsAndTheEchoLoadsBack) {
  const Experiment derived = load_text(packet_experiment("cc: hpcc, fast_forward: {enabled: true}"));
  const nlohmann::json& echoed = derived.effective_config["network"]["packet"]["fast_forward"]["interval"];
  EXPECT_EQ(echoed, "from line rate");
  EXPECT_EQ(derived.network.params.packet.fast_forward.interval, Time::zero());

  const Experiment reloaded = load_text(derived.effective_config.dump());
  EXPECT_EQ(reloaded.network.params.packet.fast_forward.interval, Time::zero());
  EXPECT_EQ(reloaded.effective_config, derived.effective_config);

  const Experiment set = load_text(packet_experiment("fast_forward: {interval: 12.5us}"));
  EXPECT_EQ(set.network.params.packet.fast_forward.interval, Time::ns(12500));
  EXPECT_EQ(set.effective_config["network"]["packet"]["fast_forward"]["interval"], "12.5us");
  EXPECT_EQ(load_text(set.effective_config.dump()).network.params.packet.fast_forward.interval, Time::ns(12500));
  // Zero is still accepted, and means the same.
  const Experiment zero = load_text(packet_experiment("fast_forward: {interval: 0ps}"));
  EXPECT_EQ(zero.effective_config["network"]["packet"]["fast_forward"]["interval"], "from line rate");
}

// Another word is refused with the key, what it got and both accepted forms.
TEST(NetworkSection, TheIntervalRefusesAnotherWord) {
  const std::string set = "network.packet.fast_forward.interval=from the line rate";
  EXPECT_EQ(load_error(kSmall, {"network.mode=packet", set}),
            "--set " + set + ": network.packet.fast_forward.interval: expected a time such as 1.5us or "
            "'from line rate', got 'from the line rate'");
  EXPECT_THAT(load_error(packet_experiment("fast_forward: {interval: auto}"), {}),
              HasSubstr("network.packet.fast_forward.interval: expected a time such as 1.5us or 'from line rate', "
                        "got 'auto'"));
  EXPECT_THAT(load_error(kSmall, {"network.mode=packet", "network.packet.fast_forward.interval=2s"}),
              HasSubstr("network.packet.fast_forward.interval: must be between 0ps and 1s, or 'from line rate', got 2s"));
}

}  // namespace
}  // namespace loom::experiment
