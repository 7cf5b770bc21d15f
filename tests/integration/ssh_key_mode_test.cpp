// The SSH key burst generates for its pods: created 0600, and refused (as OpenSSH refuses) once
// other users can read it, with the fix in the message.
#include <gtest/gtest.h>
#include <sys/stat.h>

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

}  // namespace
}  // namespace burst
