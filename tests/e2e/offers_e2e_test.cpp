// `burst offers` against the three emulated clouds at once: the real binary, each provider's key
// from its environment variable and base URL from config.yaml, as a user would set them.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

const std::map<std::string, std::string> kKeys = {{"runpod", "rpa_OFFERSE2E_never_seen_1"},
                                                  {"lambda", "secret_OFFERSE2E_never_seen_2"},
                                                  {"vast", "vast_OFFERSE2E_never_seen_3"}};

class E2EOffers : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cloud_.start().ok());
    std::filesystem::create_directories(home_.root() + "/config");
    std::ofstream f(home_.root() + "/config/config.yaml");
    f << "providers:\n";
    for (const auto& [p, key] : kKeys)
      f << "  " << p << ":\n    base_url: " << cloud_.provider_url(p) << "\n";
  }

  // The env that sets the keys of `providers` only.
  static std::map<std::string, std::string> keys(const std::vector<std::string>& providers) {
    std::map<std::string, std::string> env;
    for (const auto& p : providers) {
      std::string var = p;
      for (auto& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      env[var + "_API_KEY"] = kKeys.at(p);
    }
    return env;
  }

  BurstHome home_;
  SystemClock clock_;
  fakecloud::FakeCloud cloud_{{home_.root() + "/fakecloud", Duration(0), kKeys}, clock_};
};

TEST_F(E2EOffers, MergesTheThreeCloudsLiveCheapestFirst) {
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"offers", "--json"}, &out, &err, keys({"runpod", "lambda", "vast"})),
            0)
      << out << err;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["live"], nlohmann::json({"runpod", "lambda", "vast"}));
  EXPECT_TRUE(j["offline_table"].empty());
  std::set<std::string> seen;
  const auto& offers = j["offers"];
  ASSERT_GT(offers.size(), 10u);
  for (size_t i = 0; i < offers.size(); ++i) {
    const auto& o = offers[i];
    seen.insert(o["provider"].get<std::string>());
    EXPECT_EQ(o["price_source"], "live offer") << o.dump();
    EXPECT_GT(o["usd_per_hour"].get<double>(), 0) << o.dump();
    if (i == 0) continue;
    const auto& prev = offers[i - 1];
    // Rentable now first, then cheapest first.
    if (prev["available"] == o["available"])
      EXPECT_LE(prev["usd_per_hour"].get<double>(), o["usd_per_hour"].get<double>()) << i;
    else
      EXPECT_TRUE(prev["available"].get<bool>()) << i;
  }
  EXPECT_EQ(seen, (std::set<std::string>{"runpod", "lambda", "vast"}));
  for (const auto& [p, key] : kKeys) expect_key_nowhere(home_, cloud_, out, err, key);
}

TEST_F(E2EOffers, FiltersByGpuAndProviderIgnoringCase) {
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"offers", "--gpu", "rtx_4090", "--provider", "vast"}, &out, &err,
                      keys({"vast"})),
            0)
      << out << err;
  EXPECT_NE(out.find("live: vast\n"), std::string::npos) << out;
  int rows = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("vast ", 0) != 0) continue;
    ++rows;
    EXPECT_NE(line.find(" RTX_4090 "), std::string::npos) << line;
  }
  EXPECT_GT(rows, 0) << out;
  EXPECT_EQ(out.find("runpod "), std::string::npos) << out;
  EXPECT_EQ(out.find("lambda "), std::string::npos) << out;
}

TEST_F(E2EOffers, AHostThatBillsItsTrafficPerGbSaysSoBesideItsHourlyPrice) {
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"offers", "--provider", "vast"}, &out, &err, keys({"vast"})), 0)
      << out << err;
  EXPECT_EQ(out.find("$/GB IN/OUT"), std::string::npos) << "no host bills traffic yet:\n" << out;

  fakecloud::Faults bills;  // every host bills its traffic (REFERENCE §4.2)
  bills.inet_down_cost = 0.02;
  bills.inet_up_cost = 0.005;
  cloud_.state().set_faults("vast", bills);
  ASSERT_EQ(run_burst(home_, {"offers", "--provider", "vast"}, &out, &err, keys({"vast"})), 0)
      << out << err;
  EXPECT_NE(out.find("$/GB IN/OUT"), std::string::npos) << out;
  int rows = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("vast ", 0) == 0) {
      ++rows;
      EXPECT_NE(line.find(" 0.020/0.005 "), std::string::npos) << line;
    }
  EXPECT_GT(rows, 0) << out;
  ASSERT_EQ(
      run_burst(home_, {"offers", "--provider", "vast", "--json"}, &out, &err, keys({"vast"})), 0)
      << out << err;
  auto j = nlohmann::json::parse(out);
  ASSERT_FALSE(j["offers"].empty());
  for (const auto& o : j["offers"]) {
    EXPECT_DOUBLE_EQ(o["download_usd_per_gb"].get<double>(), 0.02) << o.dump();
    EXPECT_DOUBLE_EQ(o["upload_usd_per_gb"].get<double>(), 0.005) << o.dump();
  }
}

TEST_F(E2EOffers, ProvidersWithoutAKeyArePricedFromTheDatedTableAndSaySo) {
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"offers", "--json"}, &out, &err, keys({"lambda"})), 0) << out << err;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["live"], nlohmann::json({"lambda"}));
  EXPECT_EQ(j["offline_table"], nlohmann::json({"runpod", "vast"}));
  EXPECT_FALSE(j["price_table_as_of"].get<std::string>().empty());
  EXPECT_NE(j["notes"].dump().find("runpod: offers: runpod: no API key (set RUNPOD_API_KEY"),
            std::string::npos)
      << j["notes"].dump();
  bool table_row = false;
  for (const auto& o : j["offers"]) {
    if (o["provider"] == "lambda") {
      EXPECT_EQ(o["price_source"], "live offer");
    } else {
      EXPECT_EQ(o["price_source"].get<std::string>().rfind("offline table ", 0), 0u) << o.dump();
      table_row = true;
    }
  }
  EXPECT_TRUE(table_row);
  for (const auto& e : cloud_.state().request_log()) EXPECT_EQ(e.provider, "lambda") << e.path;
}

}  // namespace
}  // namespace burst::testing
