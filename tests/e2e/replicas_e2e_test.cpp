// Issue 33's acceptance: a plan that gives one pod two GPUs runs two replicas of the run step on
// that pod, one per GPU (job/replica_step.h), against the Vast emulator with the real binaries.
// The spec asks for 2 GPUs per pod of a diffusion render with an items file; `burst plan` shows
// the layout in its table and its block, the run rents both GPUs on one instance, each replica
// renders its half of the items (every item exactly once), the instance is deleted, and the
// report says 2 x RTX_3090 as 2 replicas, with one line per replica (its GPU, items, busy time).
// (Vast's emulator has no A10 machine; the offline-price plan that chooses vast A10 x2 is pinned
// in PodLayoutPlan.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

using nlohmann::json;

constexpr const char* kReplicaKey = "replicas_E2EKEY_must_never_be_seen_33";

std::string replica_spec() {
  return "version: 1\nname: e2e-replicas\n"
         "resources:\n  providers: [vast]\n  gpus: [RTX_3090]\n  gpu_count: 2\n"
         "  max_usd_per_hour: 0.50\n"
         "volume: {name: e2e-rep-vol, size_gb: 10, mount: /workspace}\n"
         "image: python:3.11-slim\ncode: {dir: app}\n"
         "workload:\n  kind: diffusion\n  architecture: flow-tts\n  params_b: 0.5\n"
         "  precision: bf16\n  items: 300\n  items_file: items.txt\n  audio_seconds: 40\n"
         "  steps: 32\n  guidance: 2\n  batch: 8\n"
         "run: |\n"
         "  cp \"$BURST_ITEMS_FILE\" \"done-$BURST_REPLICA_INDEX.txt\"\n"
         "  echo \"replica $BURST_REPLICA_INDEX of $BURST_REPLICA_COUNT on GPU "
         "$CUDA_VISIBLE_DEVICES: $(wc -l < \"$BURST_ITEMS_FILE\") items\"\n"
         "artefacts:\n  - {remote: done-*.txt, local: ./got}\n";
}

TEST(E2EReplicas, TwoGpuPodRunsTwoReplicasEachRenderingHalfTheItems) {
  if (getuid() != 0)
    GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
  BurstHome home;
  std::string items;
  for (int i = 0; i < 300; ++i) items += "answer-" + std::to_string(i) + "\n";
  home.write("app/items.txt", items);
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{"vast", kReplicaKey}}},
                             clock, {"vast"});
  ASSERT_TRUE(cloud.start().ok());
  write_provider_config(home, "vast", cloud.provider_url("vast"));
  const std::map<std::string, std::string> env = {{"VAST_API_KEY", kReplicaKey}};
  const std::string spec = home.write("replicas.yaml", replica_spec());

  // The table's LAYOUT column and the plan block agree: two GPUs, two copies of the step.
  std::string plan_out, plan_err;
  ASSERT_EQ(run_burst(home, {"plan", spec}, &plan_out, &plan_err, env), 0) << plan_out << plan_err;
  EXPECT_NE(plan_out.find("LAYOUT"), std::string::npos) << plan_out;
  EXPECT_NE(plan_out.find("RTX_3090 x2  2x1"), std::string::npos) << plan_out;
  EXPECT_NE(plan_out.find("GPU pod: vast RTX_3090 x2 at"), std::string::npos) << plan_out;
  EXPECT_NE(plan_out.find("/h (live offer), 2 replicas, 1 GPU each"), std::string::npos)
      << plan_out;

  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--yes"}, &out, &err, env), 0) << out << err;
  // One instance with both GPUs, deleted.
  auto pods = cloud.state().all_pods();
  ASSERT_EQ(pods.size(), 1u) << out;
  EXPECT_EQ(pods[0].gpu_count, 2) << out;
  EXPECT_EQ(pods[0].phase, fakecloud::Phase::kTerminated);
  for (const auto& pod : cloud.state().live_pods()) ADD_FAILURE() << pod.id << " still live";
  // Two replicas, one per GPU, each half of the items, their lines prefixed.
  EXPECT_NE(out.find("[r0] replica 0 of 2 on GPU 0: 150 items"), std::string::npos) << out;
  EXPECT_NE(out.find("[r1] replica 1 of 2 on GPU 1: 150 items"), std::string::npos) << out;
  std::map<std::string, int> seen;
  for (const auto& f : files_under(home.work() + "/got")) {
    std::istringstream lines(read_file(f));
    for (std::string line; std::getline(lines, line);) ++seen[line];
  }
  EXPECT_EQ(seen.size(), 300u) << out;
  for (const auto& [item, n] : seen) EXPECT_EQ(n, 1) << item;

  // The report: the pod's count as rented and the layout as planned.
  std::string jobs;
  ASSERT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr, env), 0) << jobs;
  const json list = json::parse(jobs, nullptr, false);
  ASSERT_TRUE(list.is_array() && !list.empty()) << jobs;
  const std::string id = list[0]["id"];
  const json report =
      json::parse(read_file(home.state() + "/reports/" + id + ".json"), nullptr, false);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["job"]["gpu_count"], 2) << report["job"].dump(2);
  EXPECT_EQ(report["job"]["replicas"], 2) << report["job"].dump(2);
  EXPECT_EQ(report["job"]["layout"], "2 replicas, 1 GPU each") << report["job"].dump(2);
  for (const auto& pod : report["pods"]) EXPECT_EQ(pod["gpu_count"], 2) << pod.dump();
  const std::string md = read_file(home.state() + "/reports/" + id + ".md");
  EXPECT_NE(md.find("2 x RTX_3090 (2 replicas, 1 GPU each)"), std::string::npos) << md;
  // Per replica (the facts each replica left on the pod, typed in the store): its GPU, its share
  // of the items and its busy time against the step's, in the Markdown and the JSON.
  EXPECT_NE(md.find("## Replicas"), std::string::npos) << md;
  EXPECT_NE(md.find("- replica 0 on GPU 0: 150 items, busy "), std::string::npos) << md;
  EXPECT_NE(md.find("- replica 1 on GPU 1: 150 items, busy "), std::string::npos) << md;
  ASSERT_TRUE(report["replicas"].is_array()) << report.dump(2);
  ASSERT_EQ(report["replicas"].size(), 2u) << report["replicas"].dump(2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(report["replicas"][i]["replica"], i);
    EXPECT_EQ(report["replicas"][i]["gpus"], std::to_string(i));
    EXPECT_EQ(report["replicas"][i]["items"], 150);
    EXPECT_EQ(report["replicas"][i]["exit"], 0);
  }
  expect_key_nowhere(home, cloud, out, err, kReplicaKey);
}

}  // namespace
}  // namespace burst::testing
