// make_private_dirs (burst/config.h): an existing state or config dir left 0755 with 0644 job
// logs and reports (readable by every local user) is made 0700/0600 on start; one that belongs to
// another user is refused, naming it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "burst/config.h"
#include "fakes/temp_dir.h"
#include "registry.h"

namespace burst {
namespace {

unsigned mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

void make(const std::string& path, unsigned mode, bool dir) {
  if (dir) {
    std::filesystem::create_directories(path);
  } else {
    std::ofstream(path) << "secret-ish\n";
  }
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

Config config_in(const std::string& root) {
  auto c = load_config({{"BURST_STATE_DIR", root + "/state"},
                        {"BURST_CONFIG_DIR", root + "/config"},
                        {"HOME", root}},
                       all_provider_traits());
  EXPECT_TRUE(c.ok());
  return *c;
}

TEST(PrivateDirs, AnExistingOpenStateDirAndItsFilesAreMadePrivate) {
  TempDir t;
  const std::string s = t.path() + "/state", c = t.path() + "/config";
  make(s, 0755, true);
  make(s + "/logs", 0755, true);
  make(s + "/logs/job-1.log", 0644, false);
  make(s + "/reports", 0775, true);
  make(s + "/reports/job-1.json", 0664, false);
  make(s + "/burst.db", 0644, false);
  make(s + "/local", 0755, true);
  make(s + "/local/run.sh", 0755, false);  // the local cloud's pods: not burst's to judge
  make(c, 0755, true);
  make(c + "/config.yaml", 0644, false);
  std::ofstream(c + "/config.yaml") << "ssh_wait_seconds: 5\n";  // a valid one, still 0644
  make(c + "/id_ed25519", 0644, false);
  make(c + "/tool", 0755, false);
  std::filesystem::create_directory_symlink("/usr", s + "/link");

  Status st = make_private_dirs(config_in(t.path()));
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(mode_of(s), 0700u);
  EXPECT_EQ(mode_of(s + "/logs"), 0700u);
  EXPECT_EQ(mode_of(s + "/logs/job-1.log"), 0600u);
  EXPECT_EQ(mode_of(s + "/reports"), 0700u);
  EXPECT_EQ(mode_of(s + "/reports/job-1.json"), 0600u);
  EXPECT_EQ(mode_of(s + "/burst.db"), 0600u);
  EXPECT_EQ(mode_of(s + "/local"), 0700u);
  EXPECT_EQ(mode_of(s + "/local/run.sh"), 0755u) << "inside the local cloud's root: untouched";
  EXPECT_EQ(mode_of(c), 0700u);
  EXPECT_EQ(mode_of(c + "/config.yaml"), 0600u);
  EXPECT_EQ(mode_of(c + "/id_ed25519"), 0600u);
  EXPECT_EQ(mode_of(c + "/tool"), 0700u) << "the owner's bits are kept";
  EXPECT_EQ(mode_of("/usr") & 0755u, 0755u) << "a symlink's target is not touched";
  // Idempotent, and fine when nothing exists yet.
  EXPECT_TRUE(make_private_dirs(config_in(t.path())).ok());
  TempDir empty;
  EXPECT_TRUE(make_private_dirs(config_in(empty.path())).ok());
  EXPECT_FALSE(std::filesystem::exists(empty.path() + "/state")) << "nothing is created";
}

TEST(PrivateDirs, ADirOfAnotherUserIsRefusedNamingIt) {
  TempDir t;
  std::string theirs = t.path() + "/state";
  if (::geteuid() == 0) {
    make(theirs, 0755, true);
    ASSERT_EQ(::chown(theirs.c_str(), 4242, 4242), 0);
  } else {
    theirs = "/usr";  // root's
  }
  auto c = load_config(
      {{"BURST_STATE_DIR", theirs}, {"BURST_CONFIG_DIR", t.path() + "/config"}, {"HOME", t.path()}},
      all_provider_traits());
  ASSERT_TRUE(c.ok());
  Status st = make_private_dirs(*c);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(st.error().message.rfind("cannot make " + theirs + " private (mode 0755", 0), 0u)
      << st.error().message;
  EXPECT_NE(st.error().message.find("belongs to another user"), std::string::npos);
  EXPECT_EQ(mode_of(theirs) & 0755u, 0755u) << "left as it was";
}

TEST(PrivateDirs, AFileOfAnotherUserInsideIsRefusedToo) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown a file to another user";
  TempDir t;
  make(t.path() + "/state", 0700, true);
  make(t.path() + "/state/burst.db", 0644, false);
  ASSERT_EQ(::chown((t.path() + "/state/burst.db").c_str(), 4242, 4242), 0);
  Status st = make_private_dirs(config_in(t.path()));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(t.path() + "/state/burst.db"), std::string::npos)
      << st.error().message;
}

}  // namespace
}  // namespace burst
