// What a Lambda VM must give the steps' containers, checked before the first step (issue 32,
// job/container_checks.h), against the Lambda emulator's VM faults (fakecloud/docker_shim.h):
// a VM whose docker lists no NVIDIA runtime gets it configured (nvidia-ctk runtime configure
// --runtime=docker, then a docker restart, as dstack does on Lambda VMs) and the job runs with
// --gpus all; a file system that maps root to nobody fails the job with a classified error that
// names the volume and the uid, before any step, and the VM is deleted.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {
namespace {

constexpr const char* kRuntimeKey = "secret_LAMBDA_RUNTIME_e2e_never_seen";

class LambdaRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = home_.write("rt.yaml", R"YAML(version: 1
name: e2e-rt
image: python:3.11-slim
volume: {name: e2e-rt-vol}
resources: {gpus: [A10]}
workload: {kind: custom, reference: {gpu: A10, runtime: 30s}}
run: echo step-ran-in-container > $BURST_VOLUME/rt.txt && echo step-ran
)YAML");
    ASSERT_TRUE(cloud_.start().ok());
    // Lambda's login user is ubuntu; the emulator's loopback sshd only accepts its own user.
    write_provider_config(home_, "lambda", cloud_.provider_url("lambda"),
                          {std::string("ssh_user: ") + getpwuid(getuid())->pw_name});
  }
  int run(std::string* out) {
    std::string err;
    const int rc = run_burst(home_, {"run", spec_, "--provider", "lambda", "--yes"}, out, &err,
                             {{"LAMBDA_API_KEY", kRuntimeKey}});
    *out += err;
    return rc;
  }
  std::string calls() { return read_file(cloud_.state().docker_calls_log()); }
  void expect_pod_deleted(const std::string& out) {
    auto pods = cloud_.state().all_pods();
    ASSERT_EQ(pods.size(), 1u) << out;
    EXPECT_EQ(pods[0].phase, fakecloud::Phase::kTerminated);
    EXPECT_NE(out.find(pods[0].id + " deleted (confirmed)"), std::string::npos) << out;
    EXPECT_TRUE(cloud_.state().live_pods().empty());
  }

  BurstHome home_;
  std::string spec_;
  SystemClock clock_;
  fakecloud::FakeCloud cloud_{
      {home_.root() + "/fakecloud", Duration(0), {{"lambda", kRuntimeKey}}}, clock_, {"lambda"}};
};

TEST_F(LambdaRuntime, AVmWithoutTheNvidiaRuntimeGetsItConfiguredBeforeTheFirstStep) {
  if (getuid() != 0) GTEST_SKIP() << "the emulated nvidia-ctk and systemctl run as root only";
  fakecloud::Faults f;
  f.no_nvidia_runtime = true;
  cloud_.state().set_faults("lambda", f);
  std::string out;
  ASSERT_EQ(run(&out), 0) << out << "\n" << calls();
  EXPECT_NE(out.find("NVIDIA container runtime configured for docker (nvidia-ctk)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("step-ran"), std::string::npos) << out;
  const std::string c = calls();
  const size_t configure = c.find("nvidia-ctk runtime configure --runtime=docker");
  const size_t restart = c.find("systemctl restart docker");
  const size_t step = c.find("docker run --rm --init --name burst-");
  ASSERT_NE(configure, std::string::npos) << c;
  ASSERT_NE(restart, std::string::npos) << c;
  ASSERT_NE(step, std::string::npos) << c;
  EXPECT_LT(configure, restart) << c;
  EXPECT_LT(restart, step) << "configured before any container:\n" << c;
  expect_pod_deleted(out);
}

TEST_F(LambdaRuntime, AVmWithTheRuntimeIsLeftAsItIs) {
  std::string out;
  ASSERT_EQ(run(&out), 0) << out;
  EXPECT_NE(out.find("NVIDIA container runtime present; volume "), std::string::npos) << out;
  EXPECT_EQ(calls().find("nvidia-ctk"), std::string::npos) << calls();
}

TEST_F(LambdaRuntime, AVolumeTheStepsUserCannotWriteFailsTheJobBeforeAnyStep) {
  if (getuid() != 0) GTEST_SKIP() << "root squash is emulated by dropping root to uid 65534";
  fakecloud::Faults f;
  f.volume_root_squash = true;
  cloud_.state().set_faults("lambda", f);
  std::string out;
  EXPECT_NE(run(&out), 0) << out;
  EXPECT_NE(out.find("check pod: the volume "), std::string::npos) << out;
  EXPECT_NE(out.find(" is not writable by the steps' user inside python:3.11-slim (not writable "
                     "by uid 65534 gid 65534)"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("step-ran"), std::string::npos) << "no step ran:\n" << out;
  EXPECT_EQ(calls().find("-run "), std::string::npos) << "no run step's container:\n" << calls();
  expect_pod_deleted(out);
}

}  // namespace
}  // namespace burst::testing
