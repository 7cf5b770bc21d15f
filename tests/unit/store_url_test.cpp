// Picking the store from config.yaml's `store:` (burst/store.h, open_store; burst/config.h), and
// keeping a database password out of every message: the URL is shown with "***" for it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "burst/config.h"
#include "burst/store.h"
#include "fakes/temp_dir.h"
#include "registry.h"

namespace burst {
namespace {

TEST(StoreUrl, OnlyPostgresSchemesNameAPostgresStore) {
  EXPECT_TRUE(is_postgres_url("postgres://burst@db/burst"));
  EXPECT_TRUE(is_postgres_url("postgresql:///burst?host=/run/postgresql"));
  EXPECT_FALSE(is_postgres_url("mysql://burst@db/burst"));
  EXPECT_FALSE(is_postgres_url("/var/lib/burst/burst.db"));
  EXPECT_FALSE(is_postgres_url(""));
}

TEST(StoreUrl, PasswordsAreRedactedInEveryForm) {
  EXPECT_EQ(redact_store_url("postgres://team:s3cret@db.example:5432/burst"),
            "postgres://team:***@db.example:5432/burst");
  EXPECT_EQ(redact_store_url("postgresql://team@db/burst?sslmode=require&password=s3cret"),
            "postgresql://team@db/burst?sslmode=require&password=***");
  EXPECT_EQ(redact_store_url("host=db password=s3cret dbname=burst"),
            "host=db password=*** dbname=burst");
  EXPECT_EQ(redact_store_url("password='s3 \\' cret' host=db"), "password=*** host=db");
  EXPECT_EQ(redact_store_url("postgres://team@db/burst"), "postgres://team@db/burst");
  EXPECT_EQ(redact_store_url("postgres://db/burst?application_name=x"),
            "postgres://db/burst?application_name=x");
}

TEST(StoreUrl, AnUnreachableServerIsAConnectionErrorThatNeverShowsThePassword) {
  TempDir dir;  // no server listens on a socket here
  auto s = open_store("postgresql://team:s3cret@/burst?host=" + dir.path(), "/unused");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kConnection);
  EXPECT_EQ(s.error().message.find("s3cret"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("postgresql://team:***@/burst"), std::string::npos)
      << s.error().message;
  EXPECT_EQ(open_store("mysql://x:s3cret@db/b", "/unused").error().message,
            "store mysql://x:***@db/b: not a postgres:// or postgresql:// URL");
}

TEST(StoreUrl, ConfigReadsStoreAndRefusesOtherSchemesAndAReadablePassword) {
  TempDir dir;
  const std::map<std::string, std::string> env = {{"HOME", dir.path()},
                                                  {"BURST_CONFIG_DIR", dir.path()},
                                                  {"BURST_STATE_DIR", dir.path() + "/state"}};
  const std::string file = dir.path() + "/config.yaml";
  dir.write("config.yaml", "store: postgres://team@db.example/burst\n");
  auto c = load_config(env, all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->store_url, "postgres://team@db.example/burst");

  dir.write("config.yaml", "store: sqlite:///tmp/x.db\n");
  auto bad = load_config(env, all_provider_traits());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("store: must be a postgres:// or postgresql:// URL"),
            std::string::npos)
      << bad.error().message;

  dir.write("config.yaml", "store: postgres://team:s3cret@db.example/burst\n");
  ::chmod(file.c_str(), 0644);
  auto open = load_config(env, all_provider_traits());
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.error().message.find("holds a database password (store) but its mode is 0644"),
            std::string::npos)
      << open.error().message;
  EXPECT_EQ(open.error().message.find("s3cret"), std::string::npos);
  ::chmod(file.c_str(), 0600);
  EXPECT_TRUE(load_config(env, all_provider_traits()).ok());
}

}  // namespace
}  // namespace burst
