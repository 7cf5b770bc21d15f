// Task files as SkyPilot users write them (tests/data/skypilot/real/: serving, fine-tuning,
// buckets in COPY and MOUNT mode, per-cloud images, mixed GPU counts, Ray, chains, ...), through
// the real binary: `burst validate` accepts at least 18 of 20, and each accepted file's
// `burst convert` output validates and plans with no note that a feature was dropped.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

namespace fs = std::filesystem;

const std::string kReal = std::string(BURST_SOURCE_DIR) + "/tests/data/skypilot/real";

// The "note: ..." lines of `err` that say something was dropped, ignored or refused.
std::vector<std::string> dropped_notes(const std::string& err) {
  std::vector<std::string> out;
  std::istringstream lines(err);
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("note: ", 0) != 0) continue;
    for (const char* word : {"dropped", "ignored", "not supported", "not used"})
      if (l.find(word) != std::string::npos) out.push_back(l);
  }
  return out;
}

TEST(E2ESkyPilotRealFiles, EighteenOfTwentyValidateAndTheirConversionsPlanWithNothingDropped) {
  BurstHome home;
  const std::string dir = home.work() + "/real";
  fs::copy(kReal, dir, fs::copy_options::recursive);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 20u);

  // A home of its own: netrc_home.yaml mounts ~/.netrc.
  const std::string user_home = home.work() + "/user-home";
  home.write("user-home/.netrc", "machine pypi.internal.example.com login me password s3cret\n");
  const std::map<std::string, std::string> env{{"HOME", user_home}};
  std::set<std::string> refused;
  for (const std::string& name : files) {
    const std::string file = dir + "/" + name;
    std::string out, err;
    if (run_burst(home, {"validate", file}, &out, &err, env) != 0) {
      refused.insert(name);
      continue;
    }
    EXPECT_NE(out.find(": ok (SkyPilot task, pipeline "), std::string::npos) << name << out;
    ASSERT_EQ(run_burst(home, {"convert", file}, &out, &err, env), 0) << name << err;
    const std::string converted = dir + "/converted-" + name;
    { std::ofstream(converted) << out; }
    ASSERT_EQ(run_burst(home, {"validate", converted}, &out, &err, env), 0) << name << err;
    EXPECT_EQ(out.find("s3cret"), std::string::npos) << name;  // the file's path, not its content
    ASSERT_EQ(run_burst(home, {"plan", converted, "--provider", "local"}, &out, &err, env), 0)
        << name << ":\n"
        << out << err;
    EXPECT_EQ(dropped_notes(err), std::vector<std::string>{}) << name;
    fs::remove(converted);
  }
  EXPECT_LE(refused.size(), files.size() - 18);
  // Every file here is accepted: a file_mounts source in the user's home (netrc_home.yaml) is
  // synced through code.add; it was the one refused before.
  EXPECT_EQ(refused, std::set<std::string>{});
}

}  // namespace
}  // namespace burst::testing
