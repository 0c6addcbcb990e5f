#include "loom/network/packet/shared_buffer.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"

namespace loom::network::packet {
namespace {

// Two GPUs on one switch, 100 Gb/s, 1 us: headroom = 3 x 12,500 = 37,500 bytes per ingress
// port; fixed = 2 x (37,500 + 4,096) = 83,192; with a 1,000,000-byte buffer the dynamic
// threshold at shift 3 is (1,000,000 - 83,192 - shared) / 8.
struct Pair {
  Pair() {
    const auto sw = topo.add_node(topology::NodeKind::kSwitch, "switch.0");
    const auto a = topo.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
    const auto b = topo.add_node(topology::NodeKind::kGpu, "host.1.gpu.0", 1);
    in = topo.link(topo.add_duplex_link(sw, a, Bandwidth::gbps(100), Time::us(1))).reverse;
    topo.add_duplex_link(sw, b, Bandwidth::gbps(100), Time::us(1));
    params.buffer_bytes = 1'000'000;
  }
  topology::Topology topo;
  topology::LinkId in = 0;  // a -> switch
  SwitchParams params;
};

TEST(SharedBuffer, DynamicThresholdPauseAndResume) {
  Pair pair;
  SharedBuffer buffer(pair.topo, pair.params, Bandwidth::gbps(100));
  EXPECT_EQ(buffer.threshold(pair.in), (1'000'000u - 83'192u) / 8);
  // Fill reserve and shared until shared use reaches the threshold: s >= (916,808 - s) / 8
  // first holds at s = 101,868 (s x 9 >= 916,808).
  std::uint64_t admitted = 0;
  while (!buffer.take_pause(pair.in)) {
    ASSERT_TRUE(buffer.admit(pair.in, 1000));
    admitted += 1000;
  }
  EXPECT_EQ(admitted, 4'096u + 101'904u);  // whole packets: shared 101,904 >= 101,868
  EXPECT_TRUE(buffer.paused(pair.in));
  EXPECT_FALSE(buffer.take_resume(pair.in));
  // Drain until shared + 3,072 <= threshold.
  while (!buffer.take_resume(pair.in)) buffer.release(pair.in, 1000);
  EXPECT_LE(buffer.shared_used(pair.in) + 3072, buffer.threshold(pair.in));
  EXPECT_FALSE(buffer.paused(pair.in));
}

TEST(SharedBuffer, HeadroomAbsorbsInFlightBytesThenDrops) {
  Pair pair;
  pair.params.dynamic_threshold = false;
  pair.params.static_threshold = 10'000;
  SharedBuffer buffer(pair.topo, pair.params, Bandwidth::gbps(100));
  std::uint64_t admitted = 0;
  while (buffer.admit(pair.in, 1000)) admitted += 1000;
  // reserve 4,096 + shared up to the threshold (10,000, in whole packets: 9,904 since the
  // first packet past the reserve counts 904) + headroom 37,500 in whole packets (37,000)
  EXPECT_EQ(admitted, 4'096u / 1000 * 1000 + 1000 + 9'000u + 37'000u);
  EXPECT_EQ(buffer.headroom_used(pair.in), 37'000u);
  EXPECT_TRUE(buffer.take_pause(pair.in));
}

TEST(SharedBuffer, BufferSmallerThanHeadroomIsAUserError) {
  Pair pair;
  pair.params.buffer_bytes = 50'000;
  EXPECT_THROW(SharedBuffer(pair.topo, pair.params, Bandwidth::gbps(100)), UserError);
}

}  // namespace
}  // namespace loom::network::packet
