// SSH on RunPod for any image: the start command that installs and runs sshd is valid sh with the
// key written literally, official images are left alone, and the account's keys are merged.
#include "runpod/runpod_ssh.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "burst/provider.h"
#include "runpod/runpod_provider.h"

namespace burst {
namespace {

constexpr const char* kKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHkey+/= burst@host";

// The script the start command runs (base64-wrapped in `args`: runpod_start_test.cpp).
std::string inner_script(const std::string& key) {
  auto script = runpod_ssh_bootstrap_script(key);
  EXPECT_TRUE(script.ok()) << key;
  return script.ok() ? *script : "";
}

TEST(RunpodSsh, BootstrapIsValidShWithTheKeyLiterally) {
  const std::string inner = inner_script(std::string(kKey) + "\n");
  EXPECT_NE(inner.find(std::string("k=\"") + kKey + "\""), std::string::npos) << inner;
  for (const char* part : {"apt-get install", "apk add", "yum install",
                           "/root/.ssh/authorized_keys", "sshd) -D", "while sleep 3600"})
    EXPECT_NE(inner.find(part), std::string::npos) << part;
  // sh -n parses the script without running it, both as the args string and as the inner script.
  auto args = runpod_ssh_bootstrap_args(kKey);
  ASSERT_TRUE(args.ok());
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/bootstrap.sh") << inner << "\n";
  std::ofstream(dir + "/args.sh") << *args << "\n";
  EXPECT_EQ(std::system(("sh -n " + dir + "/bootstrap.sh").c_str()), 0) << inner;
  EXPECT_EQ(std::system(("sh -n " + dir + "/args.sh").c_str()), 0) << *args;
}

TEST(RunpodSsh, BootstrapWritesTheKeyAndTheContainersEnvironmentForSessions) {
  // Run the part before sshd against a temporary root: the key lands verbatim, one line, and the
  // environment this shell has (the container's) is written where sessions read it.
  std::string inner = inner_script(kKey);
  const std::string stop = "ssh-keygen -A\n";
  ASSERT_NE(inner.find(stop), std::string::npos);
  inner = inner.substr(0, inner.find(stop));
  const size_t install = inner.find("if ! command -v sshd");
  const size_t mk = inner.find("mkdir -p");
  ASSERT_LT(install, mk);
  inner.erase(install, mk - install);  // no package installs in a unit test
  const std::string root = ::testing::TempDir() + "/bootroot";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  std::string script = inner;
  for (const char* path : {"/root/.ssh", "/run/sshd", "/etc/profile.d"})
    for (size_t at = 0; (at = script.find(std::string(" ") + path, at)) != std::string::npos;
         at += root.size() + 2)
      script.replace(at + 1, 0, root);
  std::ofstream(root + "/s.sh") << script << "\n";
  ASSERT_EQ(std::system(("BURST_IMAGE_ENV_MARK=conda sh " + root + "/s.sh").c_str()), 0) << script;
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::string line, all;
    while (std::getline(in, line)) all += line + "\n";
    return all;
  };
  EXPECT_EQ(read(root + "/root/.ssh/authorized_keys"), std::string(kKey) + "\n");
  EXPECT_NE(read(root + "/root/.ssh/environment").find("BURST_IMAGE_ENV_MARK=conda\n"),
            std::string::npos);
  EXPECT_NE(read(root + "/root/.ssh/environment").find("PATH="), std::string::npos);
  EXPECT_NE(read(root + "/etc/profile.d/burst-container-env.sh").find("BURST_IMAGE_ENV_MARK="),
            std::string::npos);
}

TEST(RunpodSsh, KeysTheShellWouldExpandAreRefusedAndOddCommentsDropped) {
  for (const char* bad : {"ssh-ed25519 AAAA$(reboot)", "ssh-ed25519 A\"B", "ssh-ed25519 `id`",
                          "ssh-ed25519 AAAA\nssh-rsa BBBB", "AAAA", "", "ssh-ed25519",
                          "ssh-ed25519$x AAAA", "rsa AAAA"}) {
    auto args = runpod_ssh_bootstrap_args(bad);
    ASSERT_FALSE(args.ok()) << bad;
    EXPECT_EQ(args.error().code, ErrorCode::kInvalid);
    EXPECT_NE(args.error().message.find("not one plain authorized_keys line"), std::string::npos);
  }
  // A user's own key with a comment the shell would expand: the key is kept, the comment is not.
  for (const char* comment : {"John's laptop", "$(reboot)", "a\"b", "`id`", "x\\y"}) {
    auto args = runpod_ssh_bootstrap_args(std::string("ssh-rsa AAAAB3Nza ") + comment);
    ASSERT_TRUE(args.ok()) << comment;
    EXPECT_NE(
        inner_script(std::string("ssh-rsa AAAAB3Nza ") + comment).find("k=\"ssh-rsa AAAAB3Nza\"\n"),
        std::string::npos)
        << *args;
  }
  auto spaced = runpod_ssh_bootstrap_script("ssh-rsa AAAAB3Nza me at work");
  ASSERT_TRUE(spaced.ok());
  EXPECT_NE(spaced->find("k=\"ssh-rsa AAAAB3Nza me at work\"\n"), std::string::npos);
}

TEST(RunpodSsh, OfficialImagesStartSshdThemselvesAndGetNoStartCommand) {
  EXPECT_TRUE(runpod_image_runs_sshd("runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404"));
  EXPECT_TRUE(runpod_image_runs_sshd("docker.io/runpod/base:0.6.2"));
  EXPECT_FALSE(runpod_image_runs_sshd("python:3.11-slim"));
  EXPECT_FALSE(runpod_image_runs_sshd("myrunpod/tool"));
  PodRequest r;
  r.name = "burst-j1-gpu";
  r.gpu = true;
  r.image = "runpod/pytorch:2.4.0";
  r.ssh_public_key = kKey;
  auto b = nlohmann::json::parse(runpod_create_pod_body(r, "NVIDIA L4", 2, "", "SECURE"));
  EXPECT_FALSE(b.contains("args"));
  EXPECT_EQ(b["env"]["PUBLIC_KEY"], kKey);
  EXPECT_EQ(b["ports"][0], "22/tcp");
  r.image = "python:3.11-slim";
  b = nlohmann::json::parse(runpod_create_pod_body(r, "NVIDIA L4", 2, "", "SECURE"));
  EXPECT_EQ(b["args"], *runpod_ssh_bootstrap_args(kKey));
}

TEST(RunpodSsh, AccountKeysAreMergedNeverReplaced) {
  const std::vector<std::string> mine = {"ssh-rsa BBBB laptop", "ssh-ed25519 CCCC work"};
  EXPECT_EQ(runpod_merged_ssh_keys(mine, std::string(kKey) + "\n"),
            (std::vector<std::string>{"ssh-rsa BBBB laptop", "ssh-ed25519 CCCC work", kKey}));
  // Already there under another comment: nothing to put.
  EXPECT_TRUE(
      runpod_merged_ssh_keys({"ssh-ed25519 CCCC other-comment"}, "ssh-ed25519 CCCC work").empty());
  EXPECT_EQ(runpod_merged_ssh_keys({}, kKey), std::vector<std::string>{kKey});
  EXPECT_TRUE(runpod_merged_ssh_keys(mine, "").empty());
}

}  // namespace
}  // namespace burst
