// RunPod's start command (`args`) under the emulator's strict argument split (fakecloud/
// runpod_start.h): the raw script burst sent until issue 32 does not survive it, the base64-wrapped
// bootstrap does, and its decoded script authorises burst's key and keeps the image's environment.
#include "fakecloud/runpod_start.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "runpod/runpod_ssh.h"
#include "util/base64.h"

namespace burst {
namespace {

constexpr const char* kStartKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHkey+/= burst@host";

TEST(RunpodStartSplit, WordsAndOneQuotedSpanSurviveAndShellSyntaxDoesNot) {
  auto w = fakecloud::runpod_strict_split("sh -c 'echo QUJD | base64 -d > /tmp/x; sh /tmp/x'");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(*w,
            (std::vector<std::string>{"sh", "-c", "echo QUJD | base64 -d > /tmp/x; sh /tmp/x"}));
  for (const char* bad :
       {"sh -c 'k=\"x\"; echo $k'", "sh -c 'a & b'", "sh -c '$(id)'", "sh -c 'unclosed",
        "sh -c 'a\nb'", "sh -c \"x\"", "sh -c 'a 2>&1'", "sh -c 'f() { :; }'"})
    EXPECT_FALSE(fakecloud::runpod_strict_split(bad).has_value()) << bad;
}

// Today's failure: the raw one-line script (quotes, $(...), &) never starts, so the pod has no
// sshd.
TEST(RunpodStartSplit, TheRawScriptOfBefore32DoesNotStartTheWrappedOneDoes) {
  const std::string raw = "sh -c 'k=\"" + std::string(kStartKey) +
                          "\"; mkdir -p /root/.ssh; echo \"$k\" >> /root/.ssh/authorized_keys; "
                          "$(command -v sshd) -D -e & while sleep 3600; do :; done'";
  auto before = fakecloud::runpod_start_command(raw);
  EXPECT_FALSE(before.started);
  EXPECT_FALSE(before.runs_sshd);
  EXPECT_NE(before.why.find("argument split"), std::string::npos) << before.why;

  auto args = runpod_ssh_bootstrap_args(kStartKey);
  ASSERT_TRUE(args.ok()) << args.error().message;
  auto now = fakecloud::runpod_start_command(*args);
  ASSERT_TRUE(now.started) << now.why << "\n" << *args;
  EXPECT_TRUE(now.runs_sshd);
  EXPECT_EQ(now.keys, kStartKey);
  EXPECT_TRUE(now.keeps_env) << now.script;
  EXPECT_EQ(now.script, *runpod_ssh_bootstrap_script(kStartKey));
}

TEST(RunpodStartSplit, AWrapperThatRunsAnotherFileOrBadBase64DoesNotStart) {
  const std::string b64 = base64_encode("echo hi\n");
  EXPECT_FALSE(
      fakecloud::runpod_start_command("sh -c 'echo " + b64 + " | base64 -d > /a; sh /b'").started);
  EXPECT_FALSE(fakecloud::runpod_start_command("sh -c 'echo QUJ | base64 -d > /a; sh /a'").started);
  EXPECT_FALSE(fakecloud::runpod_start_command("python -c 'print(1)'").started);
  EXPECT_TRUE(
      fakecloud::runpod_start_command("bash -c 'echo " + b64 + " | base64 --decode > /a; bash /a'")
          .started);
}

TEST(RunpodBootstrap, TheScriptIsValidShAndWritesTheEnvironmentForSessions) {
  auto script = runpod_ssh_bootstrap_script(std::string(kStartKey) + "\n");
  ASSERT_TRUE(script.ok());
  for (const char* part :
       {"apt-get install", "apk add", "/root/.ssh/authorized_keys", "export -p", "/etc/profile.d/",
        "/root/.ssh/environment", "PermitUserEnvironment=yes", "while sleep 3600"})
    EXPECT_NE(script->find(part), std::string::npos) << part;
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/rp-bootstrap.sh") << *script;
  EXPECT_EQ(std::system(("sh -n " + dir + "/rp-bootstrap.sh").c_str()), 0) << *script;
  // The args decode back to exactly that script with the system's own base64.
  auto args = runpod_ssh_bootstrap_args(kStartKey);
  ASSERT_TRUE(args.ok());
  const size_t from = args->find("echo ") + 5;
  const std::string b64 = args->substr(from, args->find(" |") - from);
  std::ofstream(dir + "/rp-b64") << b64 << "\n";
  ASSERT_EQ(std::system(("base64 -d " + dir + "/rp-b64 > " + dir + "/rp-decoded").c_str()), 0);
  std::ifstream in(dir + "/rp-decoded");
  std::string decoded((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(decoded, *script);
}

TEST(Base64, RoundTripsAndRefusesWhatIsNotBase64) {
  for (const std::string& s :
       std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)})
    EXPECT_EQ(base64_decode(base64_encode(s)), s);
  EXPECT_EQ(base64_encode("burst"), "YnVyc3Q=");
  for (const char* bad : {"abc", "ab=c", "a===", "ab$d", "YQ==YQ=="})
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
}

}  // namespace
}  // namespace burst
