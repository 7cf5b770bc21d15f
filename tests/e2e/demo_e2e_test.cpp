// The README's main job, as a new user runs it: the example TTS render on the local cloud, twice,
// reusing the volume the first run left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {
namespace fs = std::filesystem;

std::string sha256_of(const std::string& path) {
  std::string cmd = "sha256sum '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[128] = {0};
  if (p && fgets(buf, sizeof buf, p)) {
  }
  if (p) pclose(p);
  return std::string(buf).substr(0, 64);
}

TEST(E2EDemo, ExampleRendersPullsUploadsAndReusesTheVolumeOnTheSecondRun) {
  BurstHome home;
  // Copy the example so its outputs land in the temp dir, not the checkout.
  fs::copy(std::string(BURST_SOURCE_DIR) + "/examples/tts-render", home.work() + "/tts-render",
           fs::copy_options::recursive);
  fs::copy_file(std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml",
                home.work() + "/tts-render.yaml");
  const std::string spec = home.work() + "/tts-render.yaml";

  std::string out1, err1;
  ASSERT_EQ(run_burst(home, {"run", spec}, &out1, &err1), 0) << out1 << err1;
  EXPECT_NE(out1.find("plan for tts-render:"), std::string::npos);
  EXPECT_NE(out1.find("  | rendered 300/300 clips"), std::string::npos) << out1;
  EXPECT_NE(out1.find("voice model: not cached"), std::string::npos);
  EXPECT_NE(out1.find("volume: run #1 on this volume"), std::string::npos);
  EXPECT_NE(out1.find("  | uploaded render.wav"), std::string::npos) << "upload ran on the CPU pod";

  const std::string wav = home.work() + "/tts-output/render.wav";
  auto manifest = nlohmann::json::parse(read_file(home.work() + "/tts-output/manifest.json"));
  EXPECT_EQ(manifest["clip_count"], 300);
  EXPECT_EQ(sha256_of(wav), manifest["render"]["sha256"]) << "pulled artefact matches the render";
  EXPECT_EQ(read_file(wav).substr(0, 4), "RIFF");
  const std::string volume = home.state() + "/local/volumes/tts-cache";
  std::string latest = read_file(volume + "/published/latest");
  while (!latest.empty() && latest.back() == '\n') latest.pop_back();
  EXPECT_EQ(sha256_of(volume + "/published/" + latest + "/render.wav"),
            manifest["render"]["sha256"]);

  std::string out2, err2;
  ASSERT_EQ(run_burst(home, {"run", spec}, &out2, &err2), 0) << out2 << err2;
  EXPECT_NE(out2.find("voice model: cached on volume"), std::string::npos) << out2;
  EXPECT_NE(out2.find("volume: run #2 on this volume"), std::string::npos) << out2;

  for (const auto& out : {out1, out2}) {
    auto ids = pod_ids_in(out);
    EXPECT_EQ(ids.size(), 2u);
    for (const auto& id : ids) EXPECT_TRUE(pod_processes(id).empty()) << id;
  }
  EXPECT_EQ(files_under(home.state() + "/reports").size(), 6u)
      << "a .json, a .md and an .html per job";
}

}  // namespace
}  // namespace burst::testing
