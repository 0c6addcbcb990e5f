#include "loom/config/value_codec.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"

namespace loom::config {
namespace {

using codec::decode;
using codec::encode;

template <ConfigValue T>
std::string decode_error(std::string_view text) {
  try {
    decode<T>(text);
  } catch (const UserError& e) {
    EXPECT_FALSE(e.where().known()) << "codec errors carry no location";
    return e.message();
  }
  return "no error";
}

TEST(ValueCodec, DecodesIntegers) {
  EXPECT_EQ(decode<std::int64_t>("42"), 42);
  EXPECT_EQ(decode<std::int64_t>("-42"), -42);
  EXPECT_EQ(decode<std::int64_t>("+7"), 7);
  EXPECT_EQ(decode<std::int64_t>("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(decode<std::uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(decode<std::uint64_t>("007"), 7u);
}

TEST(ValueCodec, RejectsBadIntegers) {
  EXPECT_EQ(decode_error<std::uint64_t>("ten"), "expected a non-negative integer, got 'ten'");
  EXPECT_EQ(decode_error<std::uint64_t>("-4"), "expected a non-negative integer, got '-4'");
  EXPECT_EQ(decode_error<std::uint64_t>("18446744073709551616"),
            "expected a non-negative integer between 0 and 18446744073709551615, got "
            "'18446744073709551616'");
  EXPECT_EQ(decode_error<std::int64_t>("9223372036854775808"),
            "expected an integer between -9223372036854775808 and 9223372036854775807, got "
            "'9223372036854775808'");
  EXPECT_EQ(decode_error<std::int64_t>("1.5"), "expected an integer, got '1.5'");
  EXPECT_EQ(decode_error<std::int64_t>("1e3"), "expected an integer, got '1e3'");
  EXPECT_EQ(decode_error<std::int64_t>("0x10"), "expected an integer, got '0x10'");
  EXPECT_EQ(decode_error<std::int64_t>(""), "expected an integer, got ''");
  EXPECT_EQ(decode_error<std::int64_t>("+"), "expected an integer, got '+'");
  EXPECT_EQ(decode_error<std::int64_t>(" 5"), "expected an integer, got ' 5'");
}

TEST(ValueCodec, DecodesNumbersAndBooleans) {
  EXPECT_EQ(decode<double>("0.25"), 0.25);
  EXPECT_EQ(decode<double>("-1e-3"), -0.001);
  EXPECT_EQ(decode<double>("+3"), 3.0);
  EXPECT_EQ(decode_error<double>("inf"), "expected a finite number, got 'inf'");
  EXPECT_EQ(decode_error<double>("nan"), "expected a finite number, got 'nan'");
  EXPECT_EQ(decode_error<double>("1e999"), "expected a finite number, got '1e999'");
  EXPECT_EQ(decode_error<double>("fast"), "expected a finite number, got 'fast'");
  EXPECT_TRUE(decode<bool>("true"));
  EXPECT_TRUE(decode<bool>("TRUE"));
  EXPECT_FALSE(decode<bool>("False"));
  EXPECT_EQ(decode_error<bool>("yes"), "expected true or false, got 'yes'");
  EXPECT_EQ(decode_error<bool>("1"), "expected true or false, got '1'");
}

TEST(ValueCodec, DecodesUnitsThroughCore) {
  EXPECT_EQ(decode<Time>("1.5us"), Time::ps(1'500'000));
  EXPECT_EQ(decode<Bandwidth>("400Gbps"), Bandwidth::gbps(400));
  EXPECT_EQ(decode<Size>("64MiB"), Bytes{64} << 20);
  EXPECT_EQ(decode_error<Size>("64"), "'64' is not a size: the number has no unit; expected e.g. 16MiB, 1MB or 4096B");
}

TEST(ValueCodec, EncodesCanonically) {
  EXPECT_EQ(encode<Time>(Time::ps(1'500'000)), "1.5us");
  EXPECT_EQ(encode<Bandwidth>(Bandwidth::gbps(1600)), "1.6Tbps");
  EXPECT_EQ(encode<Size>(Bytes{64} << 20), "64MiB");
  EXPECT_EQ(encode<Size>(1'000'000), "1MB");
  EXPECT_EQ(encode<std::uint64_t>(1'000'000), 1'000'000u);
  EXPECT_EQ(encode<bool>(true), true);
  EXPECT_EQ(encode<std::string>("ring"), "ring");
  EXPECT_EQ(encode<double>(0.5), 0.5);
}

}  // namespace
}  // namespace loom::config
