// /metrics values in shortest round-trip form (issue 34 item 6): what a person reading the page
// or a Prometheus parser sees.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "daemon/metrics.h"

namespace burst::daemon {
namespace {

TEST(MetricsNumber, ShortestTextThatReadsBack) {
  EXPECT_EQ(metrics_number(0.708), "0.708");  // was 0.70799999999999996
  EXPECT_EQ(metrics_number(99.92), "99.92");
  EXPECT_EQ(metrics_number(0.1 + 0.2), "0.30000000000000004");  // a different double: kept
  EXPECT_EQ(metrics_number(3), "3");
  EXPECT_EQ(metrics_number(0), "0");
  EXPECT_EQ(metrics_number(-2.5), "-2.5");
  EXPECT_EQ(metrics_number(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(metrics_number(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(metrics_number(std::nan("")), "NaN");
  for (double v : {1e-9, 123456.789, 1e300, 0.01 * 7})
    EXPECT_EQ(std::stod(metrics_number(v)), v) << metrics_number(v);
}

}  // namespace
}  // namespace burst::daemon
