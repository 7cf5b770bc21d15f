// The mid-run budget stop through the real `burst run` on the local cloud, priced at $3600/h
// ($1 a second) so a $35 cap is crossed within seconds: the step is stopped, the pod deleted,
// and the error and the report say which cap.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

TEST(E2EBudget, RunWhoseAccruedCostWouldCrossMaxUsdIsStoppedAndItsPodDeleted) {
  BurstHome home;
  std::filesystem::create_directories(home.root() + "/config");
  std::ofstream(home.root() + "/config/config.yaml")
      << "providers:\n  local:\n    gpu_usd_per_hour: 3600\n";
  const std::string spec =
      home.write("pricey.yaml",
                 "name: pricey\nresources: {providers: [local]}\nbudget: {max_usd: 35}\n"
                 "run: |\n  echo started\n  sleep 60\n");
  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--yes"}, &out, &err);
  EXPECT_EQ(rc, 1) << out << err;
  EXPECT_NE(out.find("error: run: stopped by budget: accrued $"), std::string::npos) << out;
  EXPECT_NE(out.find("would cross cap $35.0000 (budget.max_usd)"), std::string::npos) << out;
  auto pods = pod_ids_in(out);
  ASSERT_EQ(pods.size(), 1u) << out;
  EXPECT_TRUE(pod_processes(pods[0]).empty()) << "the pod was deleted";
  EXPECT_NE(out.find("failed (budget-stop)"), std::string::npos) << out;

  std::string jobs;
  ASSERT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr), 0);
  auto list = nlohmann::json::parse(jobs);
  ASSERT_FALSE(list.empty());
  const std::string id = list[0]["id"];
  auto report = nlohmann::json::parse(read_file(home.state() + "/reports/" + id + ".json"));
  EXPECT_EQ(report["job"]["state"], "failed");
  EXPECT_EQ(report["job"]["outcome"], "budget-stop");
  EXPECT_NE(report["job"]["error"].get<std::string>().find("stopped by budget"), std::string::npos)
      << report["job"].dump(2);
  // Stopped well before the 60 s step ended: a $35 cap less the 30 s margin.
  EXPECT_LT(report["actual"]["usd"].get<double>(), 35.0) << report.dump(2);
}

}  // namespace
}  // namespace burst::testing
