// Issue 19's workers across providers, end to end: `burst plan` and `burst run` on a spec that
// allows RunPod and Vast (both emulated in one burst-fakecloud), 2,000 items, max_workers: 4.
// At the emulator's prices the plan goes wide on Vast (RTX 4090 at $0.32/h against RunPod's
// $0.69/h) and lists RunPod among the fleet's fallbacks; the emulated Vast has capacity for 2
// pods of that GPU type (fakecloud Faults::capacity, learned only at create). The run creates 2
// pods on Vast and 2 on RunPod, each RunPod worker announced by one line before its create
// there; every item comes home once, every pod on both clouds is terminated by the emulator's
// own state, and the report's 4 worker rows name their providers. (The same with RunPod as the
// full one, in process: WorkerFleetTest.WorkersTheChosenProviderHasNoPodForRunOnTheFallback...)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

using nlohmann::json;

constexpr const char* kFallbackKey = "fleet_E2EKEY_must_never_be_seen_19";

std::string two_provider_spec() {
  return "version: 1\nname: e2e-fleet\nresources:\n  providers: [runpod, vast]\n"
         "  gpus: [RTX_4090]\n  max_usd_per_hour: 4.00\n  max_workers: 4\n"
         "volume: {name: e2e-fleet-vol, size_gb: 10, mount: /workspace}\n"
         "image: python:3.11-slim\ncode: {dir: app}\n"
         "workload:\n  kind: custom\n  items: 2000\n  items_file: items.txt\n"
         "  reference: {gpu: RTX_4090, runtime: 2000s}\nbudget: {deadline: 11m}\n"
         "run: |\n"
         // Each worker holds its pod a moment, so every create meets the others' live pods (the
         // emulator's capacity counts live pods; a tiny step could end before the last create).
         "  sleep 2\n"
         "  cp \"$BURST_ITEMS_FILE\" \"done-$BURST_WORKER_INDEX.txt\"\n"
         "artefacts:\n  - {remote: done-*.txt, local: ./got}\n";
}

TEST(E2EWorkersFallback, TwoPodsOnVastAndTwoOnRunpodWhenVastHasCapacityForTwo) {
  if (getuid() != 0)
    GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
  BurstHome home;
  SystemClock clock;
  std::string items;
  for (int i = 0; i < 2000; ++i) items += "item-" + std::to_string(i) + "\n";
  home.write("app/items.txt", items);
  fakecloud::FakeCloud cloud(
      fakecloud::EmulatorOptions{home.root() + "/fakecloud",
                                 Duration(0),
                                 {{"runpod", kFallbackKey}, {"vast", kFallbackKey}}},
      clock, std::vector<std::string>{"runpod", "vast"});
  ASSERT_TRUE(cloud.start().ok());
  std::filesystem::create_directories(home.root() + "/config");
  {
    std::ofstream f(home.root() + "/config/config.yaml");
    f << "providers:\n  runpod:\n    base_url: " << cloud.provider_url("runpod")
      << "\n  vast:\n    base_url: " << cloud.provider_url("vast") << "\n";
  }
  const std::map<std::string, std::string> env = {{"RUNPOD_API_KEY", kFallbackKey},
                                                  {"VAST_API_KEY", kFallbackKey}};
  const std::string spec = home.write("fleet.yaml", two_provider_spec());

  std::string plan_out, plan_err;
  ASSERT_EQ(run_burst(home, {"plan", spec}, &plan_out, &plan_err, env), 0) << plan_out << plan_err;
  ASSERT_NE(plan_out.find("GPU pod: vast RTX_4090"), std::string::npos) << plan_out;
  ASSERT_NE(plan_out.find("4 workers"), std::string::npos) << plan_out;
  const size_t fallback = plan_out.find("  fallback: a worker the chosen offer has no pod for");
  ASSERT_NE(fallback, std::string::npos) << plan_out;
  ASSERT_NE(plan_out.find("runpod RTX_4090", fallback), std::string::npos) << plan_out;

  std::string plan_json;  // the same list for scripts: burst plan --json
  ASSERT_EQ(run_burst(home, {"plan", spec, "--json"}, &plan_json, nullptr, env), 0) << plan_json;
  const json pj = json::parse(plan_json, nullptr, false);
  ASSERT_TRUE(pj.contains("fallbacks")) << plan_json;
  int runpod_fallbacks = 0;
  for (const auto& fb : pj["fallbacks"]) runpod_fallbacks += fb["provider"] == "runpod";
  EXPECT_GE(runpod_fallbacks, 1) << plan_json;

  fakecloud::Faults f;
  f.capacity = {{"RTX 4090", 2}};
  cloud.state().set_faults("vast", f);
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--yes"}, &out, &err, env), 0) << out << err;
  // The plan the run printed is the plan `burst plan` printed, fallback line included.
  EXPECT_NE(out.find(plan_out.substr(fallback, plan_out.find('\n', fallback) - fallback)),
            std::string::npos)
      << out;

  std::map<std::string, int> made;  // GPU pods by provider, by each emulator's own state
  for (const auto& pod : cloud.state().all_pods()) {
    made[pod.provider] += pod.gpu;
    EXPECT_EQ(pod.phase, fakecloud::Phase::kTerminated) << pod.provider << " " << pod.id;
  }
  for (const auto& pod : cloud.state().live_pods()) ADD_FAILURE() << pod.id << " still live";
  EXPECT_EQ(made["runpod"], 2) << out;
  EXPECT_EQ(made["vast"], 2) << out;

  // Each RunPod worker said what changed, why and what it costs, before its create there.
  int announced = 0;
  for (int w = 0; w < 4; ++w) {
    const std::string tag = "[w" + std::to_string(w) + "] ";
    const size_t said = out.find(tag + "vast has no RTX_4090 left (provider said: ");
    if (said == std::string::npos) continue;
    ++announced;
    const size_t created = out.find(tag + "gpu pod ");
    EXPECT_LT(said, created) << out;
    EXPECT_NE(out.find("; w" + std::to_string(w) + " runs on runpod RTX_4090", said),
              std::string::npos)
        << out;
  }
  EXPECT_EQ(announced, 2) << out;

  std::map<std::string, int> seen;
  for (const auto& file : files_under(home.work() + "/got")) {
    std::istringstream lines(read_file(file));
    for (std::string line; std::getline(lines, line);) ++seen[line];
  }
  EXPECT_EQ(seen.size(), 2000u);
  for (const auto& [item, n] : seen) EXPECT_EQ(n, 1) << item;

  std::string jobs;
  ASSERT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr, env), 0) << jobs;
  const json list = json::parse(jobs, nullptr, false);
  ASSERT_TRUE(list.is_array() && !list.empty()) << jobs;
  const std::string id = list[0]["id"];
  const json report =
      json::parse(read_file(home.state() + "/reports/" + id + ".json"), nullptr, false);
  ASSERT_TRUE(report.is_object());
  ASSERT_EQ(report["workers"].size(), 4u) << report.dump(2);
  std::map<std::string, int> rows;  // worker rows by the provider their pod names
  for (const auto& w : report["workers"]) {
    ASSERT_EQ(w["where"].size(), 1u) << w.dump();
    const std::string where = w["where"][0];
    rows[where.substr(0, where.find(' '))]++;
    EXPECT_EQ(where.rfind("runpod", 0) == 0, !w["deviation"].get<std::string>().empty())
        << w.dump();
  }
  EXPECT_EQ(rows["runpod"], 2) << report.dump(2);
  EXPECT_EQ(rows["vast"], 2) << report.dump(2);
  expect_key_nowhere(home, cloud, out, err, kFallbackKey);
}

}  // namespace
}  // namespace burst::testing
