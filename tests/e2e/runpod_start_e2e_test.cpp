// `burst run` on emulated RunPod with an image that runs no sshd (pytorch/pytorch): the start
// command must survive the emulator's strict argument split (fakecloud/runpod_start.h), and the
// image's environment (PATH with /opt/conda/bin, LD_LIBRARY_PATH) must reach the steps, which run
// in SSH sessions that sshd starts with a fresh environment (issue 32, items 1 and 7).
#include <gtest/gtest.h>

#include <fstream>

#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {
namespace {

constexpr const char* kStartE2eKey = "rpa_STARTKEY_e2e_never_seen";

TEST(E2ERunpodStart, AnImageWithoutSshdBootsThroughTheSplitAndStepsSeeTheImagesEnvironment) {
  BurstHome home;
  const std::string spec = home.write("start.yaml", R"YAML(version: 1
name: e2e-start
image: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime
volume: {name: e2e-start-vol}
resources: {gpus: [RTX_4090]}
workload: {kind: custom, reference: {gpu: RTX_4090, runtime: 30s}}
run: |
  echo "session PATH=$PATH"
  echo "session torch=$PYTORCH_VERSION"
)YAML");
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{"runpod", kStartE2eKey}}},
                             clock, {"runpod"});
  ASSERT_TRUE(cloud.start().ok());
  write_provider_config(home, "runpod", cloud.provider_url("runpod"));
  // Before the fix the pod never ran sshd: a short wait keeps that failure quick.
  std::ofstream(home.root() + "/config/config.yaml", std::ios::app) << "ssh_wait_seconds: 20\n";

  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--provider", "runpod", "--yes"}, &out, &err,
                           {{"RUNPOD_API_KEY", kStartE2eKey}});
  const auto pods = cloud.state().all_pods();
  ASSERT_EQ(pods.size(), 1u) << out << err;
  EXPECT_TRUE(pods[0].start_note.empty()) << pods[0].start_note;
  EXPECT_TRUE(pods[0].sshd) << "the start command ran sshd";
  ASSERT_EQ(rc, 0) << out << err;
  // The image's PATH (the test host's login shell may put its own entries before it).
  const size_t path_line = out.find("session PATH=");
  ASSERT_NE(path_line, std::string::npos) << out;
  EXPECT_NE(out.substr(path_line, out.find('\n', path_line) - path_line).find("/opt/conda/bin:"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("session torch=2.4.0"), std::string::npos) << out;
  EXPECT_TRUE(cloud.state().live_pods().empty());
  expect_key_nowhere(home, cloud, out, err, kStartE2eKey);
}

}  // namespace
}  // namespace burst::testing
