// The `burst plan --offers` file reader (src/json/offers_json.h): what a user sees for a good file
// and for each kind of mistake.
#include "json/offers_json.h"

#include <gtest/gtest.h>

namespace burst {
namespace {

std::string error_of(const std::string& text) {
  auto r = parse_offers_json(text, "offers.json");
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  return r.error().message;
}

TEST(OffersJson, ReadsEveryFieldAndDefaults) {
  auto r = parse_offers_json(
      R"([{"provider": "acme", "gpu_type": "RTX_4090", "gpu_count": 2, "usd_per_hour": 1,
           "spot_usd_per_hour": 0.25, "region": "eu\u00e9", "available": false,
           "extra": {"nested": [1, {"x": null}]}},
          {"provider": "zeta", "gpu_type": "L4", "usd_per_hour": 0.3, "region": null}])",
      "offers.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  const Offer& a = (*r)[0];
  EXPECT_EQ(a.provider, "acme");
  EXPECT_EQ(a.gpu_type, "RTX_4090");
  EXPECT_EQ(a.gpu_count, 2);
  EXPECT_DOUBLE_EQ(a.usd_per_hour, 1.0);
  ASSERT_TRUE(a.spot_usd_per_hour.has_value());
  EXPECT_DOUBLE_EQ(*a.spot_usd_per_hour, 0.25);
  EXPECT_EQ(a.region, "eu\xc3\xa9");
  EXPECT_FALSE(a.available);
  EXPECT_EQ(a.price_source, "offers file");
  const Offer& b = (*r)[1];
  EXPECT_EQ(b.gpu_count, 1);
  EXPECT_TRUE(b.available);
  EXPECT_FALSE(b.spot_usd_per_hour.has_value());
  EXPECT_EQ(b.region, "");
  auto empty = parse_offers_json(" [ ] ", "offers.json");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(OffersJson, NamesTheOfferAndFieldThatIsWrong) {
  EXPECT_EQ(error_of(R"([{"provider": "acme", "gpu_type": "L4"}])"),
            "offers.json: offer 0: usd_per_hour is required");
  EXPECT_EQ(error_of(R"([{"provider": "a", "gpu_type": "L4", "usd_per_hour": 1},
                         {"provider": "a", "gpu_type": "L4", "usd_per_hour": 1, "gpu_count": 1.5}])"),
            "offers.json: offer 1: gpu_count: expected an integer >= 1");
  EXPECT_EQ(error_of(R"([{"provider": 3, "gpu_type": "L4", "usd_per_hour": 1}])"),
            "offers.json: offer 0: provider: expected a string");
  EXPECT_EQ(error_of(R"([{"provider": "a", "gpu_type": "L4", "usd_per_hour": -1}])"),
            "offers.json: offer 0: usd_per_hour: expected a number >= 0");
  EXPECT_EQ(error_of(R"([{"provider": "a", "gpu_type": "L4", "usd_per_hour": [1]}])"),
            "offers.json: offer 0: usd_per_hour: expected a number >= 0");
  EXPECT_EQ(error_of(R"([{"provider": "a", "gpu_type": "L4", "usd_per_hour": 1, "available": 1}])"),
            "offers.json: offer 0: available: expected true or false");
  EXPECT_EQ(error_of(R"({"provider": "a"})"), "offers.json: expected a JSON array of offers");
  EXPECT_EQ(error_of(R"([{"provider": "a", "gpu_type": "L4", "usd_per_hour": 1}, 7])"),
            "offers.json: offer 1: expected an object");
}

TEST(OffersJson, SyntaxErrorsSayWhere) {
  const std::string e = error_of(R"([{"provider": "a",, }])");
  EXPECT_EQ(e.rfind("offers.json: invalid JSON at byte 18: syntax error", 0), 0u) << e;
  EXPECT_NE(error_of(R"([{"provider": "a", "gpu_type": "L4", "usd_per_hour": 1}] x)"), "");
  EXPECT_NE(error_of(""), "");
}

}  // namespace
}  // namespace burst
