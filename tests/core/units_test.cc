#include "loom/core/units.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "loom/core/random.h"

namespace loom {
namespace {

using namespace time_literals;

struct BandwidthCase {
  const char* text;
  std::uint64_t bps;
};

TEST(Units, ParsesBandwidths) {
  const BandwidthCase cases[] = {
      {"400Gbps", 400'000'000'000},       {"100 Gb/s", 100'000'000'000},
      {"50GB/s", 400'000'000'000},        {"1.6Tbps", 1'600'000'000'000},
      {"25Gbit/s", 25'000'000'000},       {"900GBps", 7'200'000'000'000},
      {"100Mbps", 100'000'000},           {"0.5Gbps", 500'000'000},
      {"  200Gbps  ", 200'000'000'000},   {"1e2Gbps", 100'000'000'000},
      {"0Gbps", 0},
      // 360 and 48.5 GiB/s: many decimal places, whose product passes 2^64 before they divide
      {"386.54705664GB/s", 3'092'376'453'120}, {"52.076478464GB/s", 416'611'827'712},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(parse_bandwidth(c.text).bps(), c.bps) << c.text;
  }
}

TEST(Units, ParsesSizes) {
  EXPECT_EQ(parse_size("16MiB"), 16u << 20);
  EXPECT_EQ(parse_size("1MB"), 1'000'000u);
  EXPECT_EQ(parse_size("4096B"), 4096u);
  EXPECT_EQ(parse_size("1.5KiB"), 1536u);
  EXPECT_EQ(parse_size("0.1GB"), 100'000'000u);
  EXPECT_EQ(parse_size("2 GiB"), 2ull << 30);
}

TEST(Units, ParsesTimes) {
  EXPECT_EQ(parse_time("1.5us"), Time::ps(1'500'000));
  EXPECT_EQ(parse_time("500ns"), 500_ns);
  EXPECT_EQ(parse_time("2ms"), 2_ms);
  EXPECT_EQ(parse_time("10ps"), 10_ps);
  EXPECT_EQ(parse_time("1s"), 1_s);
  EXPECT_EQ(parse_time("0.0005ms"), 500_ns);
}

struct BadCase {
  const char* text;
  const char* expected_message;
};

TEST(Units, RejectsBadInputNamingTheText) {
  const BadCase bandwidth_cases[] = {
      {"400", "'400' is not a bandwidth: the number has no unit; expected e.g. 400Gbps, 100 Gb/s or 50GB/s"},
      {"400Gbs", "'400Gbs' is not a bandwidth: unknown unit 'Gbs'; expected e.g. 400Gbps, 100 Gb/s or 50GB/s"},
      {"-5Gbps", "'-5Gbps' is not a bandwidth: it is negative; expected e.g. 400Gbps, 100 Gb/s or 50GB/s"},
      {"99999999999Tbps", "'99999999999Tbps' is not a bandwidth: the value is too large; expected e.g. 400Gbps, 100 Gb/s or 50GB/s"},
      {"", "'' is not a bandwidth: it is empty; expected e.g. 400Gbps, 100 Gb/s or 50GB/s"},
      {"Gbps", "'Gbps' is not a bandwidth: it does not start with a number; expected e.g. 400Gbps, 100 Gb/s or 50GB/s"},
  };
  for (const auto& c : bandwidth_cases) {
    try {
      parse_bandwidth(c.text);
      ADD_FAILURE() << "accepted " << c.text;
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), c.expected_message);
    }
  }
  EXPECT_THROW(parse_size("0.5B"), UserError);
  EXPECT_THROW(parse_size("1.3"), UserError);
  EXPECT_THROW(parse_size("1 MBit"), UserError);
  EXPECT_THROW(parse_size("20000000TiB"), UserError);
  EXPECT_THROW(parse_time("0.1ps"), UserError);
  EXPECT_THROW(parse_time("1e7s"), UserError);  // beyond ~106 days
  EXPECT_THROW(parse_time("5"), UserError);
  EXPECT_THROW(parse_time("5 minutes"), UserError);
  EXPECT_THROW(parse_time("1e"), UserError);
}

TEST(Units, SerializationTimeRoundsUp) {
  EXPECT_EQ(serialization_time(1, Bandwidth::gbps(800)), 10_ps);
  EXPECT_EQ(serialization_time(1'000'000, Bandwidth::gbps(100)), 80_us);
  EXPECT_EQ(serialization_time(1, Bandwidth::gbps(3)), Time::ps(2667));  // 2666.67 rounded up
}

TEST(Units, FormatsRoundTrip) {
  EXPECT_EQ(to_string(Bandwidth::gbps(400)), "400Gbps");
  EXPECT_EQ(to_string(parse_bandwidth("1.6Tbps")), "1.6Tbps");
  EXPECT_EQ(format_size(16u << 20), "16MiB");
  EXPECT_EQ(format_size(1'000'000), "1MB");
  EXPECT_EQ(format_size(1234), "1234B");
  for (const char* text : {"400Gbps", "1.6Tbps", "25Gbps", "100Mbps"}) {
    EXPECT_EQ(to_string(parse_bandwidth(text)), text);
  }
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

// Random and mutated texts never crash the unit parsers: each either parses or throws UserError.
TEST(Units, RandomTextsParseOrFailCleanly) {
  RandomStream random(11, "units-fuzz");
  const std::string alphabet = "0123456789.eE+- bBKMGTikmnpsuµ/ptbitGbpsMiB\t";
  const char* seeds[] = {"400Gbps", "1.5us", "16MiB", "1e3ns", "0.5GB/s", "9999999999999999999999Tbps"};
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 20'000; ++i) {
    std::string text = seeds[random.uniform_int(0, 5)];
    const auto edits = random.uniform_int(0, 4);
    for (std::uint64_t e = 0; e < edits; ++e) {
      const auto pos = random.uniform_int(0, text.size());
      const char c = alphabet[random.uniform_int(0, alphabet.size() - 1)];
      switch (random.uniform_int(0, 2)) {
        case 0: text.insert(pos, 1, c); break;
        case 1: if (pos < text.size()) text.erase(pos, 1); break;
        default: if (pos < text.size()) text[pos] = c; break;
      }
    }
    for (int which = 0; which < 3; ++which) {
      try {
        if (which == 0) parse_bandwidth(text);
        if (which == 1) parse_size(text);
        if (which == 2) parse_time(text);
        ++parsed;
      } catch (const UserError&) {
        ++rejected;
      }
    }
  }
  // Both outcomes must be common, or the test is not exercising anything.
  EXPECT_GT(parsed, 1000);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace loom
