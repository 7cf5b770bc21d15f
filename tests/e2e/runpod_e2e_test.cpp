// `burst run examples/tts-render.yaml --provider runpod` against the RunPod v2 emulator: the real
// binary, a real HTTP API, real sshd pods. The base URL comes from config.yaml in the test's
// BURST_CONFIG_DIR and the key from RUNPOD_API_KEY, as a user would set them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {
namespace {
namespace fs = std::filesystem;

constexpr const char* kRunpodKey = "rpa_E2EKEY_must_never_be_seen_42";

TEST(E2ERunpod, ExampleRunsOnEmulatedRunpodAndLeavesNoPodOrKeyBehind) {
  BurstHome home;
  const std::string spec = copy_tts_example(home);
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(400), {{"runpod", kRunpodKey}}},
                             clock, {"runpod"});
  ASSERT_TRUE(cloud.start().ok());
  write_provider_config(home, "runpod", cloud.provider_url("runpod"));

  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--provider", "runpod", "--yes"}, &out, &err,
                           {{"RUNPOD_API_KEY", kRunpodKey}});
  ASSERT_EQ(rc, 0) << out << err;

  // Pods: a GPU pod and a CPU pod for the upload, both on the volume, both with our key.
  const std::string pub = read_file(home.root() + "/config/id_ed25519.pub");
  auto pods = cloud.state().all_pods();
  ASSERT_EQ(pods.size(), 2u) << out;
  auto vols = cloud.state().volumes("runpod");
  ASSERT_EQ(vols.size(), 1u);
  EXPECT_EQ(vols[0].name, "tts-cache");
  int gpus = 0;
  for (const auto& p : pods) {
    gpus += p.gpu;
    EXPECT_EQ(p.volume_id, vols[0].id) << p.name;
    EXPECT_EQ(p.mount_path, "/workspace");
    EXPECT_EQ(p.public_key + "\n", pub) << p.name;
    // python:3.11-slim runs no SSH server: the start command installed one with our key.
    EXPECT_TRUE(p.sshd) << p.name;
    EXPECT_EQ(p.image, "python:3.11-slim");
    // ... through the base64-wrapped start command, which survived the strict argument split.
    EXPECT_NE(p.extra.value("args", "").find(" | base64 -d > "), std::string::npos)
        << p.extra.dump();
    EXPECT_TRUE(p.start_note.empty()) << p.start_note;
    EXPECT_EQ(p.region, vols[0].region) << "pod and volume in one data centre";
    EXPECT_EQ(p.phase, fakecloud::Phase::kTerminated) << p.name;
    EXPECT_NE(out.find(p.id + " deleted (confirmed)"), std::string::npos) << p.id << "\n" << out;
  }
  EXPECT_EQ(gpus, 1);
  EXPECT_TRUE(cloud.state().live_pods().empty());
  // burst's key is also on the account (merged, so startSsh and the proxy know it).
  ASSERT_EQ(cloud.state().account_keys("runpod").size(), 1u);
  EXPECT_EQ(cloud.state().account_keys("runpod")[0] + "\n", pub);

  // Deletion was verified with the provider: a GET after the DELETE answered 404.
  for (const auto& p : pods) {
    bool deleted = false, verified = false;
    for (const auto& e : cloud.state().request_log()) {
      if (e.method == "DELETE" && e.path == "/runpod/v2/pods/" + p.id && e.status == 204)
        deleted = true;
      if (deleted && e.method == "GET" && e.path == "/runpod/v2/pods/" + p.id && e.status == 404)
        verified = true;
    }
    EXPECT_TRUE(verified) << p.id;
  }

  // The artefacts came home, the upload ran on the CPU pod against the shared volume.
  auto manifest = nlohmann::json::parse(read_file(home.work() + "/tts-output/manifest.json"));
  EXPECT_EQ(manifest["clip_count"], kExampleQuestionsInTests);
  EXPECT_EQ(read_file(home.work() + "/tts-output/render.wav").substr(0, 4), "RIFF");
  EXPECT_NE(out.find("  | uploaded render.wav"), std::string::npos) << out;
  EXPECT_FALSE(read_file(vols[0].dir + "/published/latest").empty());

  // A report, and the key nowhere: output, state (db, logs, reports), emulator files and log.
  auto reports = files_under(home.state() + "/reports");
  EXPECT_EQ(reports.size(), 3u) << "JSON, Markdown and HTML";
  EXPECT_EQ(out.find(kRunpodKey), std::string::npos);
  EXPECT_EQ(err.find(kRunpodKey), std::string::npos);
  for (const auto& f : files_under(home.root()))
    EXPECT_EQ(read_file(f).find(kRunpodKey), std::string::npos) << f;
  for (const auto& e : cloud.state().request_log()) {
    EXPECT_TRUE(e.authorised) << e.method << " " << e.path;
    EXPECT_FALSE(e.key_leaked) << e.method << " " << e.path;
  }
  EXPECT_EQ(cloud.state().state_json().dump().find(kRunpodKey), std::string::npos);
}

// A SkyPilot task's disk_size is the pod's own disk (issue 34), sent as CreatePodRequest.disk;
// the kept volume keeps its own size. The GPU pod gets it, the upload's CPU pod does not.
TEST(E2ERunpod, SkyPilotDiskSizeBecomesThePodsOwnDisk) {
  BurstHome home;
  const std::string task = home.write("task.yaml",
                                      "resources:\n  accelerators: RTX_4090\n  disk_size: 120\n"
                                      "  image_id: docker:python:3.11-slim\n"
                                      "run: echo on-the-pod\n");
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(400), {{"runpod", kRunpodKey}}},
                             clock, {"runpod"});
  ASSERT_TRUE(cloud.start().ok());
  write_provider_config(home, "runpod", cloud.provider_url("runpod"));
  std::string out, err;
  const int rc = run_burst(home, {"run", task, "--provider", "runpod", "--yes"}, &out, &err,
                           {{"RUNPOD_API_KEY", kRunpodKey}});
  ASSERT_EQ(rc, 0) << out << err;
  EXPECT_NE(out.find("its own disk 120 GB (wiped with the pod)"), std::string::npos) << out;
  int gpu_pods = 0;
  for (const auto& p : cloud.state().all_pods()) {
    if (!p.gpu) {
      EXPECT_FALSE(p.extra.contains("disk")) << p.extra.dump();
      continue;
    }
    ++gpu_pods;
    EXPECT_EQ(p.extra.value("disk", 0), 120) << p.extra.dump();
  }
  EXPECT_EQ(gpu_pods, 1);
  auto vols = cloud.state().volumes("runpod");
  ASSERT_EQ(vols.size(), 1u);
  EXPECT_EQ(vols[0].size_gb, 50) << "disk_size is not the kept volume";
  EXPECT_TRUE(cloud.state().live_pods().empty());
}

// The provider's pod list answers 200 with an empty body (an API change): burst cannot find a
// pod again through it, so `burst run` creates nothing and says why (fail closed).
TEST(E2ERunpod, ABrokenPodListMeansNothingIsCreated) {
  BurstHome home;
  const std::string spec = copy_tts_example(home);
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{"runpod", kRunpodKey}}},
                             clock, {"runpod"});
  ASSERT_TRUE(cloud.start().ok());
  fakecloud::Faults f;
  f.list_fault = "empty-body";
  cloud.state().set_faults("runpod", f);
  write_provider_config(home, "runpod", cloud.provider_url("runpod"));
  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--provider", "runpod", "--yes"}, &out, &err,
                           {{"RUNPOD_API_KEY", kRunpodKey}});
  EXPECT_EQ(rc, 1) << out << err;
  EXPECT_NE((out + err).find("refusing to create a pod, because runpod's pod list cannot be read"),
            std::string::npos)
      << out << err;
  EXPECT_TRUE(cloud.state().all_pods().empty()) << "a pod was created behind a broken list";
}

}  // namespace
}  // namespace burst::testing
