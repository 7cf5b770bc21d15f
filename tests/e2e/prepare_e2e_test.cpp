// The prepare step on emulated RunPod (plan/prepare.h): the real binary, the RunPod v2 emulator,
// real sshd pods on one volume. A cold volume stages on a CPU pod that is created, used and
// deleted (verified) before the GPU pod is created, in the provider's own request order; the
// second run finds the volume warm and the step's creates: present, so it is skipped. `burst plan`
// and `burst run` print the same plan block, and the report says what happened each time.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {
namespace {

constexpr const char* kPrepKey = "rpa_PREPKEY_e2e";

// The "plan for ...:" block (its first line and the indented ones after it).
std::string plan_block(const std::string& out) {
  std::istringstream in(out);
  std::string block;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("plan for ", 0) == 0) {
      inside = true;
    } else if (inside && line.rfind("  ", 0) != 0) {
      break;
    }
    if (inside) block += line + "\n";
  }
  return block;
}

// The newest report's JSON "prepare" object.
nlohmann::json newest_prepare(const BurstHome& home, const std::string& job_out) {
  for (const auto& f : files_under(home.state() + "/reports"))
    if (f.size() > 5 && f.substr(f.size() - 5) == ".json") {
      auto j = nlohmann::json::parse(read_file(f));
      if (job_out.find(j["job"]["id"].get<std::string>()) != std::string::npos)
        return j.value("prepare", nlohmann::json());
    }
  return {};
}

TEST(E2EPrepare, ColdVolumeStagesOnACpuPodFirstAndAWarmVolumeSkipsTheStep) {
  BurstHome home;
  const std::string spec = home.write("prep.yaml", R"YAML(version: 1
name: e2e-prep
image: python:3.11-slim
volume: {name: e2e-prep-vol}
resources: {gpus: [RTX_4090]}
workload: {kind: custom, reference: {gpu: RTX_4090, runtime: 30s}}
prepare:
  run: |
    mkdir -p "$BURST_VOLUME/models"
    echo weights > "$BURST_VOLUME/models/w.bin"
    echo "staged the weights"
  creates: [models/w.bin]
  download_gb: 14
run: test -s "$BURST_VOLUME/models/w.bin" && echo "the run sees the weights"
)YAML");
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{"runpod", kPrepKey}}},
                             clock, {"runpod"});
  ASSERT_TRUE(cloud.start().ok());
  write_provider_config(home, "runpod", cloud.provider_url("runpod"));
  const std::map<std::string, std::string> env{{"RUNPOD_API_KEY", kPrepKey}};

  // Cold: the plan puts the step on a CPU pod, and the run executes that plan.
  std::string plan_out, out, err;
  ASSERT_EQ(run_burst(home, {"plan", spec, "--provider", "runpod"}, &plan_out, &err, env), 0)
      << plan_out << err;
  const std::string planned = plan_block(plan_out);
  EXPECT_NE(planned.find("  volume:  e2e-prep-vol (50 GB), cold\n"), std::string::npos) << planned;
  EXPECT_NE(planned.find("  prepare: cpu-pod (runpod CPU pod at $"), std::string::npos) << planned;
  ASSERT_EQ(run_burst(home, {"run", spec, "--provider", "runpod", "--yes"}, &out, &err, env), 0)
      << out << err;
  EXPECT_EQ(plan_block(out), planned) << "burst run prints the plan burst plan printed";
  EXPECT_NE(out.find("staged the weights"), std::string::npos) << out;
  EXPECT_NE(out.find("the run sees the weights"), std::string::npos) << out;

  // The provider's own history: CPU pod created, deleted and verified gone, then the GPU pod.
  auto pods = cloud.state().all_pods();
  ASSERT_EQ(pods.size(), 2u);
  std::vector<std::string> order;  // "create cpu", "delete <id>", "gone <id>", "create gpu"
  for (const auto& e : cloud.state().request_log()) {
    if (e.method == "POST" && e.path == "/runpod/v2/pods" && e.status / 100 == 2)
      order.push_back(e.body.find("\"cpu\"") != std::string::npos ? "create cpu" : "create gpu");
    for (const auto& p : pods) {
      if (e.method == "DELETE" && e.path == "/runpod/v2/pods/" + p.id && e.status == 204)
        order.push_back(std::string("delete ") + (p.gpu ? "gpu" : "cpu"));
      if (e.method == "GET" && e.path == "/runpod/v2/pods/" + p.id && e.status == 404 &&
          (order.empty() || order.back() != std::string("gone ") + (p.gpu ? "gpu" : "cpu")))
        order.push_back(std::string("gone ") + (p.gpu ? "gpu" : "cpu"));
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"create cpu", "delete cpu", "gone cpu", "create gpu",
                                             "delete gpu", "gone gpu"}));
  for (const auto& p : pods) EXPECT_EQ(p.volume_id, pods[0].volume_id) << "one volume";
  EXPECT_TRUE(cloud.state().live_pods().empty());
  auto cold = newest_prepare(home, out);
  EXPECT_EQ(cold.value("where", ""), "cpu-pod") << cold.dump();
  EXPECT_EQ(cold.value("outcome", ""), "ok") << cold.dump();
  EXPECT_EQ(cold.value("planned", ""), "cpu-pod") << cold.dump();
  EXPECT_GT(cold.value("usd", 0.0), 0) << "the CPU pod's bill";

  // Warm: an earlier job succeeded and left models/w.bin; the plan expects a skip, the GPU pod
  // checks and skips, and no CPU pod is created.
  ASSERT_EQ(run_burst(home, {"plan", spec, "--provider", "runpod"}, &plan_out, &err, env), 0)
      << plan_out << err;
  const std::string warm_plan = plan_block(plan_out);
  EXPECT_NE(warm_plan.find("  prepare: skipped if every creates: path exists"), std::string::npos)
      << warm_plan;
  ASSERT_EQ(run_burst(home, {"run", spec, "--provider", "runpod", "--yes"}, &out, &err, env), 0)
      << out << err;
  EXPECT_EQ(plan_block(out), warm_plan);
  EXPECT_NE(out.find("prepare skipped: every creates: path exists on the volume (models/w.bin)"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("staged the weights"), std::string::npos) << out;
  EXPECT_EQ(cloud.state().all_pods().size(), 3u) << "one more pod: the GPU pod";
  EXPECT_TRUE(cloud.state().live_pods().empty());
  auto warm = newest_prepare(home, out);
  EXPECT_EQ(warm.value("where", ""), "skipped") << warm.dump();
  EXPECT_EQ(warm.value("planned", ""), "skipped") << warm.dump();
  EXPECT_EQ(warm.value("usd", 1.0), 0);
}

}  // namespace
}  // namespace burst::testing
