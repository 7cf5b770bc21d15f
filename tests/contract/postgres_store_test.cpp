// What only the PostgreSQL Store has, on the real server the contract suite uses
// (postgres_server.h): states stored as the same strings as SQLite's and unknown ones refused
// naming the row, a newer schema refused, the postgresql:// URL form, and a connection the
// server dropped opened again. Part of the ctest entry store.postgres.
#include <gtest/gtest.h>

#include <string>

#include "burst/store.h"
#include "contract/postgres_server.h"
#include "contract/store_records.h"
#include "store/postgres_schema.h"

namespace burst {
namespace {

using testing::make_job;
using testing::make_pod;
using testing::PostgresServer;

class PostgresStore : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!server().skip_reason().empty()) GTEST_SKIP() << server().skip_reason();
    if (!server().error().empty()) FAIL() << server().error();
    conninfo_ = server().fresh_conninfo();
    auto s = open_postgres_store(conninfo_);
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(*s);
  }
  static PostgresServer& server() { return PostgresServer::get(); }
  void sql(const std::string& statement) {
    EXPECT_EQ(server().run_sql(conninfo_, statement), "") << statement;
  }

  std::string conninfo_;
  std::unique_ptr<Store> store_;
};

TEST_F(PostgresStore, UnknownStatesAreErrorsNamingTheRowAsInSqlite) {
  ASSERT_TRUE(store_->create_job(make_job("j-old", 1)).ok());
  Result<int64_t> row = store_->add_pod(make_pod("j-old", "p", 1));
  ASSERT_TRUE(row.ok());
  sql("UPDATE jobs SET state = 'interrupted'");  // what an older burst wrote reads back
  EXPECT_EQ(store_->get_job("j-old")->state, JobState::kInterrupted);

  sql("UPDATE jobs SET state = 'paused'");
  sql("UPDATE pods SET state = 'hibernating'");
  Result<JobRecord> job = store_->get_job("j-old");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(job.error().message,
            "store: job \"j-old\" has unknown state \"paused\" (written by a newer burst?)");
  EXPECT_FALSE(store_->recent_jobs(10).ok());
  Result<std::vector<PodRecord>> pods = store_->live_pods();
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.error().message, "store: pod row " + std::to_string(*row) +
                                      " (job \"j-old\") has unknown state \"hibernating\" "
                                      "(written by a newer burst?)");
}

TEST_F(PostgresStore, ANewerSchemaIsRefusedAndLeftAlone) {
  sql("UPDATE burst_schema SET version = 99");
  auto again = open_postgres_store(conninfo_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(again.error().message,
            "store: the PostgreSQL database has schema version 99; this burst understands up to " +
                std::to_string(pg::current_schema_version()) + ": upgrade burst");
}

TEST_F(PostgresStore, APostgresqlUrlInTheConfigOpensIt) {
  auto s = open_store(server().url(), "/nonexistent/burst.db");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE((*s)->create_job(make_job("via-url", 1)).ok());
  EXPECT_TRUE((*s)->get_job("via-url").ok());
}

// A daemon outlives server restarts: a call on a connection the server closed may fail
// (kConnection), and the next one connects again.
TEST_F(PostgresStore, AConnectionTheServerDroppedIsOpenedAgain) {
  ASSERT_TRUE(store_->create_job(make_job("j", 1)).ok());
  sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE application_name = 'burst' AND pid <> pg_backend_pid()");
  Result<JobRecord> first = store_->get_job("j");
  if (!first.ok()) {
    EXPECT_EQ(first.error().code, ErrorCode::kConnection) << first.error().message;
  }
  Result<JobRecord> second = store_->get_job("j");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->id, "j");
}

}  // namespace
}  // namespace burst
