// The exact decimal <-> double conversions behind config units (config_numbers.h).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "config/config_numbers.h"

namespace ipusim::config::detail {
namespace {

TEST(ConfigNumbers, ParsesDecimalsScaledExactly) {
  EXPECT_EQ(parse_decimal("1325", 6), 1.325e9);
  EXPECT_EQ(parse_decimal("1.85e3", 6), 1.85e9);
  EXPECT_EQ(parse_decimal("31.5", 9), 31.5e9);
  EXPECT_EQ(parse_decimal("-0.5"), -0.5);
  EXPECT_EQ(parse_decimal("+.25"), 0.25);
  EXPECT_EQ(parse_decimal("7."), 7.0);
  // 0.1 MHz: the double nearest 100000, not 0.1 * 1e6 rounded twice.
  EXPECT_EQ(parse_decimal("0.1", 6), 100000.0);
}

TEST(ConfigNumbers, RejectsWhatIsNotAPlainNumber) {
  for (const char* text : {"", "abc", "1,5", "0x10", "1e", "1e+", ".", "-", "1.2.3", ".inf", "nan", " 1", "1 ",
                           "1e999999"}) {
    EXPECT_FALSE(parse_decimal(text).has_value()) << "'" << text << "'";
  }
}

TEST(ConfigNumbers, ParsesUnsigned) {
  EXPECT_EQ(parse_unsigned("1472"), 1472u);
  EXPECT_EQ(parse_unsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_unsigned("18446744073709551616"));
  EXPECT_FALSE(parse_unsigned("-1"));
  EXPECT_FALSE(parse_unsigned("+1"));
  EXPECT_FALSE(parse_unsigned("1.0"));
  EXPECT_FALSE(parse_unsigned(""));
}

TEST(ConfigNumbers, FormatsReadably) {
  EXPECT_EQ(format_decimal(1.325e9, 6), "1325");
  EXPECT_EQ(format_decimal(16e9, 9), "16");
  EXPECT_EQ(format_decimal(31.5e9, 9), "31.5");
  EXPECT_EQ(format_decimal(0.25), "0.25");
  EXPECT_EQ(format_decimal(-2.5e-3), "-0.0025");
  EXPECT_EQ(format_decimal(0), "0");
  EXPECT_EQ(format_decimal(1e-9), "1e-9");
  EXPECT_EQ(format_decimal(1e300, 9), "1e291");
}

TEST(ConfigNumbers, FormatThenParseIsTheIdentity) {
  std::mt19937_64 rng(20240601);  // fixed seed: the same values every run
  for (int pow10 : {0, 6, 9, -3}) {
    for (int i = 0; i < 20000; ++i) {
      uint64_t bits = rng();
      double value;
      std::memcpy(&value, &bits, sizeof value);
      if (!std::isfinite(value)) continue;
      auto back = parse_decimal(format_decimal(value, pow10), pow10);
      ASSERT_TRUE(back.has_value()) << format_decimal(value, pow10);
      ASSERT_EQ(*back, value) << format_decimal(value, pow10) << " pow10 " << pow10;
    }
    std::uniform_real_distribution<double> moderate(0, 1e12);
    for (int i = 0; i < 20000; ++i) {
      double value = moderate(rng);
      ASSERT_EQ(parse_decimal(format_decimal(value, pow10), pow10), value);
    }
  }
}

}  // namespace
}  // namespace ipusim::config::detail
