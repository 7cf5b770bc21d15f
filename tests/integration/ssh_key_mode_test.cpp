// The SSH key burst generates for its pods: created 0600, and refused (as OpenSSH refuses) once
// other users can read it, with the fix in the message; made once when several first jobs start
// at the same moment in a fresh config dir.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "burst/ssh_keys.h"
#include "fakes/temp_dir.h"

namespace burst {
namespace {

TEST(SshKeyMode, TheGeneratedKeyIs0600AndAReadableOneIsRefused) {
  TempDir dir;
  const std::string key = dir.path() + "/keys/id_ed25519";
  auto pub = ensure_keypair(key);
  ASSERT_TRUE(pub.ok()) << pub.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  ::chmod(key.c_str(), 0644);
  auto refused = ensure_keypair(key);
  ASSERT_FALSE(refused.ok()) << "a world-readable private key was used";
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(refused.error().message, "ssh key: " + key +
                                         " has mode 0644, so other users can read it; run "
                                         "`chmod 600 " +
                                         key + "`");
  ::chmod(key.c_str(), 0600);
  auto again = ensure_keypair(key);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, *pub) << "the same key, not a new one";
}

// Six processes (as six first `burst run`s) released at once on a fresh config dir: every one gets
// the key, and the same one.
TEST(SshKeyMode, SixFirstJobsAtOnceInAFreshConfigDirAllGetTheSameKey) {
  TempDir dir;
  const std::string key = dir.path() + "/config/id_ed25519";
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < 6; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(gate[1]);
      char c;
      while (::read(gate[0], &c, 1) > 0) {
      }  // released when the parent closes its end
      auto pub = ensure_keypair(key);
      std::ofstream(dir.path() + "/out." + std::to_string(i))
          << (pub.ok() ? *pub : "ERROR " + pub.error().message);
      ::_exit(pub.ok() ? 0 : 1);
    }
    children.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  std::string first;
  for (int i = 0; i < 6; ++i) {
    std::stringstream line;
    line << std::ifstream(dir.path() + "/out." + std::to_string(i)).rdbuf();
    EXPECT_EQ(line.str().rfind("ssh-ed25519 ", 0), 0u) << "job " << i << ": " << line.str();
    if (i == 0) first = line.str();
    EXPECT_EQ(line.str(), first) << "job " << i << " got another key";
  }
  auto after = ensure_keypair(key);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(*after, first) << "the key on disk is the one every job got";
}

}  // namespace
}  // namespace burst
