// The security pass (issue 8), end to end on the local cloud: values a user does not control
// (env values, secrets, paths with quotes, `$()`, backticks and newlines) reach the pod literally
// and never run as commands; what burst writes on this machine is private to the user.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

namespace fs = std::filesystem;

// Each would create a file named PWNED-* if any layer passed it through a shell unquoted.
constexpr const char* kQuotes = R"(it's "quoted" \ back\slash)";
constexpr const char* kSubst = "$(touch PWNED-subst)";
constexpr const char* kTicks = "`touch PWNED-ticks`";
constexpr const char* kNewline = "line one\nline two; touch PWNED-newline";
constexpr const char* kSecuritySecret = "s3cr3t'$(touch PWNED-secret)\"`touch PWNED-secret2`";

// YAML double-quoted scalars: escape backslashes, quotes and newlines.
std::string yq(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

TEST(E2ESecurity, HostileValuesAndPathsReachThePodLiterallyAndNeverRun) {
  BurstHome home;
  home.write("app/in.txt", "x");
  const std::string remote_dir = "$BURST_VOLUME/w d 'q' $(touch PWNED-dir)";
  const std::string spec = home.write(
      "job.yaml",
      "version: 1\nname: hostile\nvolume: {name: sec-vol}\nresources: {providers: [local]}\n"
      "env:\n  QUOTES: " +
          yq(kQuotes) + "\n  SUBST: " + yq(kSubst) + "\n  TICKS: " + yq(kTicks) +
          "\n  NEWLINE: " + yq(kNewline) +
          "\nsecrets: [HOSTILE_SECRET]\n"
          "code: {dir: app, remote_dir: " +
          yq(remote_dir) +
          "}\n"
          "run: |\n"
          "  printf '%s' \"$QUOTES\" > \"$BURST_VOLUME/QUOTES.txt\"\n"
          "  printf '%s' \"$SUBST\" > \"$BURST_VOLUME/SUBST.txt\"\n"
          "  printf '%s' \"$TICKS\" > \"$BURST_VOLUME/TICKS.txt\"\n"
          "  printf '%s' \"$NEWLINE\" > \"$BURST_VOLUME/NEWLINE.txt\"\n"
          "  printf '%s' \"$HOSTILE_SECRET\" > \"$BURST_VOLUME/HOSTILE_SECRET.txt\"\n"
          "  pwd > \"$BURST_VOLUME/pwd.txt\"\n"
          "  test -f in.txt\n");
  std::string out, err;
  int rc =
      run_burst(home, {"run", spec, "--yes"}, &out, &err, {{"HOSTILE_SECRET", kSecuritySecret}});
  ASSERT_EQ(rc, 0) << out << err;

  const std::string vol = home.state() + "/local/volumes/sec-vol";
  EXPECT_EQ(read_file(vol + "/QUOTES.txt"), kQuotes);
  EXPECT_EQ(read_file(vol + "/SUBST.txt"), kSubst);
  EXPECT_EQ(read_file(vol + "/TICKS.txt"), kTicks);
  EXPECT_EQ(read_file(vol + "/NEWLINE.txt"), kNewline);
  EXPECT_EQ(read_file(vol + "/HOSTILE_SECRET.txt"), kSecuritySecret);
  EXPECT_EQ(read_file(vol + "/pwd.txt"), vol + "/w d 'q' $(touch PWNED-dir)\n");
  // Nothing ran: no PWNED-* file anywhere burst or the pod could have written.
  for (const auto& f : files_under(home.root()))
    EXPECT_NE(fs::path(f).filename().string().rfind("PWNED-", 0), 0u)
        << "a value ran as a command: " << f;
  // And the secret, hostile or not, is redacted everywhere burst wrote.
  EXPECT_EQ(out.find("s3cr3t"), std::string::npos);
  for (const auto& f : files_under(home.state())) {
    if (f.find("/volumes/") != std::string::npos) continue;  // the user's own data
    EXPECT_EQ(read_file(f).find("s3cr3t"), std::string::npos) << "secret found in " << f;
  }
}

// What burst creates on this machine is the user's alone: the state and config dirs 0700 (so
// nothing inside is reachable by others), the database and the generated SSH key 0600, and the
// job's log and reports 0600 from their creation (issue 29: they were 0644 until the next start).
TEST(E2ESecurity, WhatBurstWritesLocallyIsPrivateToTheUser) {
  BurstHome home;
  home.write("app/in.txt", "x");
  const std::string spec = home.write("job.yaml",
                                      "version: 1\nname: modes\nvolume: {name: modes-vol}\ncode: "
                                      "{dir: app}\nresources: {providers: [local]}\n"
                                      "run: echo hi\n");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--provider", "local", "--yes"}, &out, &err), 0)
      << out << err;
  auto mode_of = [](const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 0777;
  };
  EXPECT_EQ(mode_of(home.state()), 0700u);
  EXPECT_EQ(mode_of(home.state() + "/burst.db"), 0600u);
  int keys = 0;
  for (const auto& f : files_under(home.root() + "/config")) {
    if (f.size() > 4 && f.substr(f.size() - 4) == ".pub") continue;
    EXPECT_EQ(mode_of(f) & 077, 0u) << f;
    // The private key itself; its creation lock (id_ed25519.lock) must be private too.
    keys += f.size() >= 11 && f.substr(f.size() - 11) == "/id_ed25519";
  }
  EXPECT_EQ(keys, 1) << "the generated key lives in the config dir";
  int written = 0;
  for (const char* dir : {"/logs", "/reports"})
    for (const auto& f : files_under(home.state() + dir)) {
      EXPECT_EQ(mode_of(f), 0600u) << f;
      ++written;
    }
  EXPECT_GE(written, 4) << "the job's log and its three reports";
}

}  // namespace
}  // namespace burst::testing
