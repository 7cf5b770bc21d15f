// `burst run examples/tts-render.yaml` on each emulated cloud when the image (python:3.11-slim,
// no SSH server) gets no working SSH bootstrap (the emulator's no_ssh_bootstrap knob: RunPod's
// start command, Vast's SSH runtype or Lambda's key set-up does nothing). The pod turns running
// and publishes its SSH port as the API documents, nothing answers there, so the run fails
// saying so, and the pod is deleted and verified gone with the provider. The working bootstrap
// is the happy path of runpod_e2e_test, vast_e2e_test and lambda_e2e_test (same image).
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <fstream>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

struct Cloud {
  const char* provider;
  const char* key_env;
  const char* key;
  const char* delete_method;  // how the API deletes a pod, and the path holding its id
  const char* delete_path;
};

const Cloud kClouds[] = {
    {"runpod", "RUNPOD_API_KEY", "rpa_BOOTSTRAPKEY_never_seen_42", "DELETE", "/runpod/v2/pods/"},
    {"vast", "VAST_API_KEY", "vast_BOOTSTRAPKEY_never_seen_42", "DELETE",
     "/vast/api/v0/instances/"},
    {"lambda", "LAMBDA_API_KEY", "secret_BOOTSTRAPKEY_lambda_never_seen_42", "POST",
     "/lambda/api/v1/instance-operations/terminate"},
};

// Names the parameter in test listings (ctest -N) by its provider: never its raw bytes or its key.
void PrintTo(const Cloud& c, std::ostream* os) { *os << c.provider; }

class SshBootstrapOff : public ::testing::TestWithParam<Cloud> {};

TEST_P(SshBootstrapOff, TheRunFailsSayingSshNeverAnsweredAndThePodIsDeletedAndVerifiedGone) {
  const Cloud c = GetParam();
  BurstHome home;
  const std::string spec = copy_tts_example(home);
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(200), {{c.provider, c.key}}},
                             clock, {c.provider});
  ASSERT_TRUE(cloud.start().ok());
  fakecloud::Faults f;
  f.no_ssh_bootstrap = true;
  cloud.state().set_faults(c.provider, f);
  std::vector<std::string> extra;
  // Lambda's login user is ubuntu; the emulator's loopback sshd only accepts its own user.
  if (std::string(c.provider) == "lambda")
    extra.push_back(std::string("ssh_user: ") + getpwuid(getuid())->pw_name);
  write_provider_config(home, c.provider, cloud.provider_url(c.provider), extra);
  std::ofstream(home.root() + "/config/config.yaml", std::ios::app) << "ssh_wait_seconds: 2\n";

  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--provider", c.provider, "--yes"}, &out, &err,
                           {{c.key_env, c.key}});
  EXPECT_NE(rc, 0) << out << err;
  const std::string all = out + err;
  EXPECT_NE(all.find("gave up waiting for SSH"), std::string::npos) << all;
  EXPECT_NE(all.find("refused"), std::string::npos) << all;

  // One GPU pod, made with no SSH server behind its port; deleted, and the delete verified.
  auto pods = cloud.state().all_pods();
  ASSERT_EQ(pods.size(), 1u) << all;
  const auto& pod = pods[0];
  EXPECT_FALSE(pod.sshd);
  EXPECT_EQ(pod.phase, fakecloud::Phase::kTerminated);
  EXPECT_NE(out.find(pod.id + " deleted (confirmed)"), std::string::npos) << all;
  EXPECT_TRUE(cloud.state().live_pods().empty());
  bool deleted = false;
  for (const auto& e : cloud.state().request_log())
    deleted =
        deleted ||
        (e.method == c.delete_method && e.path.rfind(c.delete_path, 0) == 0 &&
         (e.path.find(pod.id) != std::string::npos || e.body.find(pod.id) != std::string::npos) &&
         e.status / 100 == 2);
  EXPECT_TRUE(deleted) << "the provider was asked to delete " << pod.id;
  expect_key_nowhere(home, cloud, out, err, c.key);
}

INSTANTIATE_TEST_SUITE_P(EmulatedClouds, SshBootstrapOff, ::testing::ValuesIn(kClouds),
                         [](const ::testing::TestParamInfo<Cloud>& i) {
                           return std::string(i.param.provider);
                         });

}  // namespace
}  // namespace burst::testing
