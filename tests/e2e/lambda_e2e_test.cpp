// `burst run examples/tts-render.yaml --provider lambda` against the Lambda emulator: the real
// binary, a real HTTP API, real sshd instances. The base URL comes from config.yaml in the test's
// BURST_CONFIG_DIR and the key from LAMBDA_API_KEY, as a user would set them. Lambda has no
// CPU-only instances, so the upload runs where the plan's hand-off choice put it.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

constexpr const char* kKey = "secret_E2EKEY_lambda_must_never_be_seen_42";

TEST(E2ELambda, ExampleRunsOnEmulatedLambdaHandsOffAsPlannedAndLeavesNothing) {
  BurstHome home;
  const std::string spec = copy_tts_example(home);
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(400), {{"lambda", kKey}}}, clock,
                             {"lambda"});
  ASSERT_TRUE(cloud.start().ok());
  // Lambda's login user is ubuntu; the emulator's loopback sshd only accepts its own user.
  const std::string user = getpwuid(getuid())->pw_name;
  write_provider_config(home, "lambda", cloud.provider_url("lambda"), {"ssh_user: " + user});

  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--provider", "lambda", "--yes"}, &out, &err,
                           {{"LAMBDA_API_KEY", kKey}});
  ASSERT_EQ(rc, 0) << out << err;

  // One GPU instance with the file system and burst's registered key; no CPU instance.
  const std::string pub = read_file(home.root() + "/config/id_ed25519.pub");
  auto pods = cloud.state().all_pods();
  ASSERT_EQ(pods.size(), 1u) << out;
  const auto& pod = pods[0];
  EXPECT_TRUE(pod.gpu);
  EXPECT_EQ(pod.name.rfind("burst-", 0), 0u) << pod.name;
  EXPECT_EQ(pod.gpu_type, "gpu_1x_a10");
  auto vols = cloud.state().volumes("lambda");
  ASSERT_EQ(vols.size(), 1u);
  EXPECT_EQ(vols[0].name, "tts-cache");
  EXPECT_EQ(pod.volume_id, vols[0].id);
  EXPECT_EQ(pod.mount_path, "/lambda/nfs/tts-cache") << "Lambda's fixed mount point";
  EXPECT_EQ(pod.region, vols[0].region);
  EXPECT_EQ(pod.public_key + "\n", pub);
  EXPECT_TRUE(pod.sshd) << "a Lambda VM runs sshd with the account key named at launch";
  EXPECT_EQ(pod.phase, fakecloud::Phase::kTerminated);
  EXPECT_NE(out.find(pod.id + " deleted (confirmed)"), std::string::npos) << out;
  EXPECT_TRUE(cloud.state().live_pods().empty());

  // The key was registered by name, and the terminate verified by a read that showed it gone.
  int key_added = 0;
  bool terminated = false, verified = false;
  for (const auto& e : cloud.state().request_log()) {
    key_added += e.method == "POST" && e.path == "/lambda/api/v1/ssh-keys" && e.status == 200;
    if (e.method == "POST" && e.path == "/lambda/api/v1/instance-operations/terminate" &&
        e.status == 200 && e.body.find(pod.id) != std::string::npos)
      terminated = true;
    if (terminated && e.method == "GET" && e.path == "/lambda/api/v1/instances/" + pod.id)
      verified = true;
  }
  EXPECT_EQ(key_added, 1);
  EXPECT_TRUE(terminated);
  EXPECT_TRUE(verified);

  // Artefacts home; the upload ran once, where the plan said, and the report says so.
  auto manifest = nlohmann::json::parse(read_file(home.work() + "/tts-output/manifest.json"));
  EXPECT_EQ(manifest["clip_count"], kExampleQuestionsInTests);
  EXPECT_EQ(read_file(home.work() + "/tts-output/render.wav").substr(0, 4), "RIFF");
  EXPECT_NE(out.find("hand-off: upload from "), std::string::npos) << out;
  EXPECT_NE(out.find("  | uploaded render.wav"), std::string::npos) << out;
  std::string report_json;
  for (const auto& f : files_under(home.state() + "/reports"))
    if (f.size() > 5 && f.substr(f.size() - 5) == ".json") report_json = f;
  ASSERT_FALSE(report_json.empty());
  auto report = nlohmann::json::parse(read_file(report_json));
  ASSERT_TRUE(report.contains("handoff")) << report.dump(2);
  const std::string where = report["handoff"]["where"];
  EXPECT_EQ(report["handoff"]["upload"], "ok");
  std::vector<std::string> phases;
  for (const auto& p : report["phases"]) phases.push_back(p["phase"]);
  auto at = [&](const std::string& name) {
    return std::find(phases.begin(), phases.end(), name) - phases.begin();
  };
  ASSERT_LT(at("delete-gpu-pod"), static_cast<long>(phases.size()));
  if (where == "gpu-pod") {
    ASSERT_LT(at("upload-on-gpu-pod"), at("delete-gpu-pod")) << "uploaded before the delete";
    EXPECT_FALSE(read_file(vols[0].dir + "/published/latest").empty());
  } else {
    ASSERT_EQ(where, "local");
    ASSERT_GT(at("upload-local"), at("delete-gpu-pod")) << "uploaded after the delete";
    ASSERT_LT(at("upload-local"), static_cast<long>(phases.size()));
    bool published = false;
    for (const auto& f : files_under(home.state() + "/handoff"))
      published = published || f.find("/volume/published/latest") != std::string::npos;
    EXPECT_TRUE(published);
  }
  EXPECT_EQ(std::count(phases.begin(), phases.end(), "upload"), 0) << "no CPU pod phase";
  EXPECT_GE(files_under(home.state() + "/reports").size(), 2u);
  expect_key_nowhere(home, cloud, out, err, kKey);
}

// Issue 29: a multi-line secret (a PEM key) cannot go into a Lambda VM's environment; on main the
// VM was created, then the step refused it. It is refused now before anything exists, and the
// value never shows.
TEST(E2ELambda, AMultiLineSecretIsRefusedBeforeAnyInstanceExists) {
  BurstHome home;
  const std::string spec = copy_tts_example(home);
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(400), {{"lambda", kKey}}}, clock,
                             {"lambda"});
  ASSERT_TRUE(cloud.start().ok());
  write_provider_config(home, "lambda", cloud.provider_url("lambda"), {});
  const std::string pem = "-----BEGIN KEY-----\nc2VjcmV0LWxpbmUtb25l\n-----END KEY-----";
  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--provider", "lambda", "--yes"}, &out, &err,
                           {{"LAMBDA_API_KEY", kKey}, {"HF_TOKEN", pem}});
  EXPECT_EQ(rc, 2) << out << err;
  EXPECT_NE(err.find("secrets: env HF_TOKEN holds a line break, which lambda cannot carry"),
            std::string::npos)
      << err;
  EXPECT_TRUE(cloud.state().all_pods().empty()) << "no instance was created";
  EXPECT_TRUE(cloud.state().volumes("lambda").empty()) << "no file system was created";
  EXPECT_EQ((out + err).find("c2VjcmV0LWxpbmUtb25l"), std::string::npos) << "the value never shows";
}

}  // namespace
}  // namespace burst::testing
