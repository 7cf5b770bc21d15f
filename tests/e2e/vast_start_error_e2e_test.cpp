// `burst run` on emulated Vast when the instance's container cannot start: Vast keeps it at
// actual_status "created" with the runtime's error in status_msg (fakecloud/vast_api.cpp,
// Faults::start_error). burst stops waiting at once, names Vast's words, deletes the instance
// (verified gone), well within 120 s, instead of billing through the whole SSH wait, and tries
// another machine in the same run (issue 32): the job's volume lives on the failed machine, so
// the new machine gets a new volume, and the run says so before it is made.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <utility>

#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {
namespace {

constexpr const char* kVastStartKey = "vast_STARTKEY_e2e_never_seen";

constexpr const char* kOci =
    "Error response from daemon: failed to create task for container: failed to create shim "
    "task: OCI runtime create failed: runc create failed: unable to start container process";

std::string oci_spec(BurstHome& home, const std::string& run) {
  return home.write("oci.yaml", R"YAML(version: 1
name: e2e-oci
image: python:3.11-slim
volume: {name: e2e-oci-vol}
resources: {gpus: [RTX_4090]}
workload: {kind: custom, reference: {gpu: RTX_4090, runtime: 30s}}
run: )YAML" + run + "\n");
}

// Every machine's runtime fails: each try ends at once with Vast's words and its instance
// deleted; after kMaxStartRetries other machines the job gives up, nothing left running.
TEST(E2EVastStartError, AReportedStartErrorEndsTheWaitAndTheInstanceIsDeleted) {
  BurstHome home;
  const std::string spec = oci_spec(home, "echo never");
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{"vast", kVastStartKey}}},
                             clock, {"vast"});
  ASSERT_TRUE(cloud.start().ok());
  fakecloud::Faults f;
  f.start_error = kOci;
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
  ASSERT_GE(pods.size(), 2u) << "another machine was tried:\n" << all;
  for (const auto& p : pods) {
    EXPECT_EQ(p.phase, fakecloud::Phase::kTerminated) << p.id;
    EXPECT_NE(out.find(p.id + " deleted (confirmed)"), std::string::npos) << p.id << "\n" << all;
  }
  EXPECT_NE(pods[0].region, pods[1].region) << "the second try is on another machine";
  EXPECT_TRUE(cloud.state().live_pods().empty());
  expect_key_nowhere(home, cloud, out, err, kVastStartKey);
}

// Only the cheapest machine's runtime fails: the job moves to the next machine in the same run,
// says that its volume is new there, and succeeds.
TEST(E2EVastStartError, TheJobTriesAnotherMachineAndSucceeds) {
  if (getuid() != 0)
    GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
  BurstHome home;
  const std::string spec = oci_spec(home, "echo ran-after-start-error");
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{"vast", kVastStartKey}}},
                             clock, {"vast"});
  ASSERT_TRUE(cloud.start().ok());
  fakecloud::Faults f;
  f.start_error = kOci;
  f.start_error_machine = 41202;  // the cheapest RTX 4090 machine the quality filters allow
  cloud.state().set_faults("vast", f);
  write_provider_config(home, "vast", cloud.provider_url("vast"));

  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--provider", "vast", "--yes"}, &out, &err,
                           {{"VAST_API_KEY", kVastStartKey}});
  const std::string all = out + err;
  EXPECT_EQ(rc, 0) << all;
  EXPECT_NE(all.find("ran-after-start-error"), std::string::npos) << all;
  EXPECT_NE(all.find("OCI runtime create failed"), std::string::npos) << all;
  EXPECT_NE(all.find("trying another machine"), std::string::npos) << all;
  auto pods = cloud.state().all_pods();  // by id, not by age: the failed one first
  ASSERT_EQ(pods.size(), 2u) << all;
  if (pods[0].region != "41202") std::swap(pods[0], pods[1]);
  EXPECT_EQ(pods[0].region, "41202");
  EXPECT_EQ(pods[1].region, "41201");
  for (const auto& p : pods) {
    EXPECT_EQ(p.phase, fakecloud::Phase::kTerminated) << p.id;
    EXPECT_NE(out.find(p.id + " deleted (confirmed)"), std::string::npos) << p.id << "\n" << all;
  }
  // The first pod was deleted before the second was created.
  EXPECT_LT(out.find(pods[0].id + " deleted (confirmed)"), out.find(pods[1].id + " created"))
      << all;
  // The volume on the failed machine stays; the new one is announced before it is made.
  EXPECT_NE(all.find("the volume e2e-oci-vol is on the machine that failed"), std::string::npos)
      << all;
  const size_t said = all.find(
      "new volume: e2e-oci-vol will be created on vast in Washington, US (machine 41201), 50 GB, "
      "$7.50/month while it exists; it starts empty; e2e-oci-vol on vast in Quebec, CA (machine "
      "41202) is kept and not used by this run");
  ASSERT_NE(said, std::string::npos) << all;
  EXPECT_LT(said, all.find(pods[1].id + " created")) << all;
  EXPECT_NE(all.find("created empty on machine 41201"), std::string::npos) << all;
  EXPECT_EQ(cloud.state().volumes("vast").size(), 2u);
  EXPECT_TRUE(cloud.state().live_pods().empty());
  expect_key_nowhere(home, cloud, out, err, kVastStartKey);
}

}  // namespace
}  // namespace burst::testing
