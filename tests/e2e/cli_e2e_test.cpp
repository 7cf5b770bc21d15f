// The CLI surface a user meets first: help, version, validate, and bad input creating nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

TEST(E2ECli, HelpOnEverySubcommandAndVersion) {
  BurstHome home;
  std::string out;
  for (const char* sub : {"run", "validate", "reap", "jobs", "plan", "gpus"}) {
    EXPECT_EQ(run_burst(home, {sub, "--help"}, &out, nullptr), 0) << sub;
    EXPECT_NE(out.find("Usage"), std::string::npos) << sub << ": " << out;
  }
  EXPECT_EQ(run_burst(home, {"--version"}, &out, nullptr), 0);
  EXPECT_EQ(out.rfind("burst ", 0), 0u) << out;
}

TEST(E2ECli, ValidateAcceptsTheExample) {
  BurstHome home;
  std::string out, err;
  EXPECT_EQ(
      run_burst(home, {"validate", std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml"},
                &out, &err),
      0)
      << err;
  EXPECT_NE(out.find("ok (pipeline tts-render)"), std::string::npos) << out;
}

TEST(E2ECli, BadSpecExits2NamesFileLineColumnFieldAndCreatesNothing) {
  BurstHome home;
  std::string spec =
      home.write("bad.yaml", "name: x\nrun: echo hi\nresources:\n  max_usd_per_hour: cheap\n");
  std::string out, err;
  for (const char* cmd : {"validate", "run"}) {
    EXPECT_EQ(run_burst(home, {cmd, spec}, &out, &err), 2) << cmd;
    EXPECT_EQ(err, spec + ":4:21: resources.max_usd_per_hour: expected a number, got \"cheap\"\n")
        << cmd;
  }
  EXPECT_FALSE(std::filesystem::exists(home.state())) << "nothing may be created for a bad spec";
}

TEST(E2ECli, PlanPricesTheExampleFromTheOfflineTableAndNeverPicksAnH100) {
  BurstHome home;
  std::string out, err;
  const std::string spec = std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml";
  ASSERT_EQ(run_burst(home, {"plan", spec, "--provider", "runpod", "--json", "--all"}, &out, &err),
            0)
      << err;
  auto plan = nlohmann::json::parse(out);
  EXPECT_EQ(plan["chosen"]["provider"], "runpod");
  const std::string gpu = plan["chosen"]["gpu"];
  EXPECT_EQ(gpu.find("H100"), std::string::npos) << gpu;
  bool saw_h100_reason = false;
  for (const auto& c : plan["candidates"]) {
    if (c["gpu"] == gpu && c["rejected"] == "") {
      EXPECT_EQ(c["bound"], "bandwidth");
    }
    if (std::string(c["gpu"]).find("H100") != std::string::npos) {
      EXPECT_NE(c["rejected"], "") << "an H100 is never a candidate for this render";
      saw_h100_reason = true;
    }
  }
  EXPECT_TRUE(saw_h100_reason) << "the plan says why the H100 is out";
  EXPECT_FALSE(std::filesystem::exists(home.state())) << "planning creates nothing";
}

TEST(E2ECli, GpusListsTheCatalog) {
  BurstHome home;
  std::string out;
  ASSERT_EQ(run_burst(home, {"gpus", "--json"}, &out, nullptr), 0);
  auto gpus = nlohmann::json::parse(out);
  EXPECT_GE(gpus.size(), 25u);
}

TEST(E2ECli, UnknownSubcommandIsAUsageError) {
  BurstHome home;
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"launch"}, &out, &err), 2);
}

}  // namespace
}  // namespace burst::testing
