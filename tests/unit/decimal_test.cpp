// parse_decimal (util/decimal.h) accepts what from_chars accepts, on both of its paths: from_chars
// where the standard library has it, strtod on a checked copy where it does not (libc++ < 17).
#include "util/decimal.h"

#include <gtest/gtest.h>

namespace burst {
namespace {

TEST(Decimal, BothPathsReadTheSameNumbersAndRefuseTheSameText) {
  for (auto [text, want] : {std::pair{"0", 0.0},
                            {"1.5", 1.5},
                            {"-2", -2.0},
                            {".25", 0.25},
                            {"3.", 3.0},
                            {"1e3", 1000.0},
                            {"2.5E-1", 0.25},
                            {"1e+2", 100.0}}) {
    ASSERT_EQ(parse_decimal(text), want) << text;
    EXPECT_EQ(parse_decimal_strtod(text), want) << text;
  }
  for (const char* bad : {"", "+1", " 1", "1 ", "0x10", "inf", "nan", "1e", "e5", ".", "-", "1..2",
                          "1e5e5", "1,5", "1e999"}) {
    EXPECT_EQ(parse_decimal(bad), std::nullopt) << bad;
    EXPECT_EQ(parse_decimal_strtod(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace burst
