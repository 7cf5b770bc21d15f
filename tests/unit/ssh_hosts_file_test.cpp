// The ssh_config file burst owns (util/ssh_hosts_file.h): the Host entry a user's `ssh
// burst-<job>` reads, replaced and removed by pod and by job, and concurrent jobs' edits all
// kept (flock + rename).
#include "util/ssh_hosts_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace burst {
namespace {

namespace fs = std::filesystem;

class SshHostsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("ssh-hosts-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = ssh_hosts_path(dir_.string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string text() const {
    std::ifstream in(path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static SshHostEntry entry(const std::string& job, const std::string& pod, int worker = -1) {
    SshHostEntry e;
    e.aliases = {ssh_host_alias(job, worker)};
    e.job_id = job;
    e.pod_id = pod;
    e.host = "127.0.0.1";
    e.port = 2201;
    e.user = "root";
    e.identity_file = "/home/u/.config/burst/id_ed25519";
    e.known_hosts_file = "/home/u/state dir/ssh/" + pod + ".known_hosts";
    return e;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(SshHostsFileTest, AnEntryIsAHostBlockSshReadsAndTheHeaderSaysHowToIncludeIt) {
  ASSERT_TRUE(add_ssh_host(path_, entry("j-1", "local-a")).ok());
  EXPECT_EQ(text(),
            "# Written by burst: one Host per live pod (burst-<job>, burst-<job>-w<i>, "
            "burst-<job>-cpu).\n"
            "# Entries come and go with the pods; edits to them are lost. To use them, add this "
            "line at\n"
            "# the top of ~/.ssh/config:\n"
            "#   Include " +
                path_ +
                "\n"
                "\n"
                "# burst job j-1 pod local-a\n"
                "Host burst-j-1\n"
                "  HostName 127.0.0.1\n"
                "  Port 2201\n"
                "  User root\n"
                "  IdentityFile /home/u/.config/burst/id_ed25519\n"
                "  IdentitiesOnly yes\n"
                "  UserKnownHostsFile \"/home/u/state dir/ssh/local-a.known_hosts\"\n"
                "  StrictHostKeyChecking accept-new\n"
                "  LogLevel ERROR\n");
  EXPECT_EQ((fs::status(path_).permissions() & fs::perms::all), fs::perms(0600));
}

TEST_F(SshHostsFileTest, ReplacedByPodRemovedByPodAndByJob) {
  SshHostEntry w0 = entry("j-2", "local-w0", 0);
  w0.aliases.push_back(ssh_host_alias("j-2"));
  ASSERT_TRUE(add_ssh_host(path_, entry("j-1", "local-a")).ok());
  ASSERT_TRUE(add_ssh_host(path_, w0).ok());
  ASSERT_TRUE(add_ssh_host(path_, entry("j-2", "local-w1", 1)).ok());
  const std::string before = text();
  EXPECT_NE(before.find("Host burst-j-2-w0 burst-j-2\n"), std::string::npos) << before;
  // The same pod again (a reattach): one entry, with the new port.
  SshHostEntry moved = entry("j-1", "local-a");
  moved.port = 2999;
  ASSERT_TRUE(add_ssh_host(path_, moved).ok());
  const std::string after = text();
  const std::string marker = "# burst job j-1 pod local-a\nHost burst-j-1\n  HostName 127.0.0.1\n";
  EXPECT_EQ(after.find(marker), after.rfind(marker)) << "one entry for the pod";
  EXPECT_NE(after.find(marker + "  Port 2999\n"), std::string::npos) << after;
  ASSERT_TRUE(remove_ssh_hosts(path_, "", "local-w1").ok());
  EXPECT_EQ(text().find("burst-j-2-w1"), std::string::npos);
  EXPECT_NE(text().find("burst-j-2-w0"), std::string::npos);
  ASSERT_TRUE(remove_ssh_hosts(path_, "j-2", "").ok());
  EXPECT_EQ(text().find("j-2"), std::string::npos) << text();
  ASSERT_TRUE(remove_ssh_hosts(path_, "j-1", "").ok());
  EXPECT_EQ(text().find("\nHost "), std::string::npos) << text();
  EXPECT_EQ(text().rfind("# Written by burst", 0), 0u) << "the header stays";
}

TEST_F(SshHostsFileTest, RefusesValuesSshCannotCarry) {
  SshHostEntry bad = entry("j-1", "local-a");
  bad.host = "evil\n  ProxyCommand sh";
  EXPECT_FALSE(add_ssh_host(path_, bad).ok());
  bad = entry("j-1", "local-a");
  bad.identity_file = "/a\"b";
  EXPECT_FALSE(add_ssh_host(path_, bad).ok());
  EXPECT_FALSE(fs::exists(path_));
  EXPECT_EQ(ssh_host_alias("j 1/x"), "burst-j-1-x");
  EXPECT_EQ(ssh_host_alias("j1", 3), "burst-j1-w3");
  EXPECT_EQ(ssh_host_alias("j1", -1, true), "burst-j1-cpu");
}

TEST_F(SshHostsFileTest, ConcurrentJobsKeepEveryEntry) {
  // 8 "jobs" at once, each adding 12 pods and removing every other one.
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([this, t] {
      const std::string job = "j-" + std::to_string(t);
      for (int i = 0; i < 12; ++i) {
        const std::string pod = job + "-p" + std::to_string(i);
        EXPECT_TRUE(add_ssh_host(path_, entry(job, pod, i)).ok());
        if (i % 2 == 1) {
          const std::string prev = job + "-p" + std::to_string(i - 1);
          EXPECT_TRUE(remove_ssh_hosts(path_, "", prev).ok());
        }
      }
    });
  for (std::thread& t : threads) t.join();
  const std::string all = text();
  for (int t = 0; t < 8; ++t)
    for (int i = 0; i < 12; ++i) {
      const std::string marker = "# burst job j-" + std::to_string(t) + " pod j-" +
                                 std::to_string(t) + "-p" + std::to_string(i) + "\n";
      EXPECT_EQ(all.find(marker) != std::string::npos, i % 2 == 1) << marker;
    }
}

TEST_F(SshHostsFileTest, KnowsWhetherTheUsersConfigIncludesIt) {
  const std::string user = (dir_ / "config").string();
  EXPECT_FALSE(ssh_config_includes(user, path_));
  std::ofstream(user) << "Host x\n  User y\n";
  EXPECT_FALSE(ssh_config_includes(user, path_));
  std::ofstream(user) << "include \"" << path_ << "\"\nHost x\n";
  EXPECT_TRUE(ssh_config_includes(user, path_));
}

}  // namespace
}  // namespace burst
