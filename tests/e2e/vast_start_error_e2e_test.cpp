// `burst run` on emulated Vast when the instance's container cannot start: Vast keeps it at
// actual_status "created" with the runtime's error in status_msg (fakecloud/vast_api.cpp,
// Faults::start_error). burst stops waiting at once, names Vast's words, and deletes the instance
// (verified gone), well within 120 s, instead of billing through the whole SSH wait (issue 32).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {
namespace {

constexpr const char* kVastStartKey = "vast_STARTKEY_e2e_never_seen";

TEST(E2EVastStartError, AReportedStartErrorEndsTheWaitAndTheInstanceIsDeleted) {
  BurstHome home;
  const std::string spec = home.write("oci.yaml", R"YAML(version: 1
name: e2e-oci
image: python:3.11-slim
volume: {name: e2e-oci-vol}
resources: {gpus: [RTX_4090]}
workload: {kind: custom, reference: {gpu: RTX_4090, runtime: 30s}}
run: echo never
)YAML");
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{"vast", kVastStartKey}}},
                             clock, {"vast"});
  ASSERT_TRUE(cloud.start().ok());
  fakecloud::Faults f;
  f.start_error =
      "Error response from daemon: failed to create task for container: failed to create shim "
      "task: OCI runtime create failed: runc create failed: unable to start container process";
  cloud.state().set_faults("vast", f);
  write_provider_config(home, "vast", cloud.provider_url("vast"));
  // Without the fix the wait ran to this deadline (Vast's own is 30 minutes).
  std::ofstream(home.root() + "/config/config.yaml", std::ios::app) << "ssh_wait_seconds: 150\n";

  std::string out, err;
  const auto start = std::chrono::steady_clock::now();
  const int rc = run_burst(home, {"run", spec, "--provider", "vast", "--yes"}, &out, &err,
                           {{"VAST_API_KEY", kVastStartKey}});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_NE(rc, 0) << out << err;
  EXPECT_LT(took, std::chrono::seconds(120)) << out << err;
  const std::string all = out + err;
  EXPECT_NE(all.find("vast says: Error response from daemon: failed to create task"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("OCI runtime create failed"), std::string::npos) << all;
  EXPECT_EQ(all.find("gave up waiting for SSH"), std::string::npos) << all;
  auto pods = cloud.state().all_pods();
  ASSERT_EQ(pods.size(), 1u) << all;
  EXPECT_EQ(pods[0].phase, fakecloud::Phase::kTerminated);
  EXPECT_NE(out.find(pods[0].id + " deleted (confirmed)"), std::string::npos) << all;
  EXPECT_TRUE(cloud.state().live_pods().empty());
  expect_key_nowhere(home, cloud, out, err, kVastStartKey);
}

}  // namespace
}  // namespace burst::testing
