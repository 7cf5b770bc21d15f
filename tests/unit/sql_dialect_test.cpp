// The dialect layer under the one SQL store (src/store/sql_db.h) and the pieces written once for
// both databases: how each database spells an upsert (SQLite keeps the INSERT OR REPLACE it always
// ran), the budget policy (which caps count for a reservation, and the headroom rule), and the one
// migration list rendered per database. The store contract suite (tests/contract) runs the whole
// store on both.
#include <gtest/gtest.h>

#include <string>

#include "store/pg_conn.h"
#include "store/schema_steps.h"
#include "store/sql_ledger.h"
#include "store/sqlite_stmt.h"

namespace burst {
namespace {

const sql::Dialect& sqlite_dialect() { return sqlite::Db(nullptr).dialect(); }
const sql::Dialect& postgres_dialect() { return pg::Db(nullptr).dialect(); }

TEST(SqlDialect, UpsertsAreSpelledAsEachDatabaseAlwaysRanThem) {
  EXPECT_EQ(sql::replace_into(sqlite_dialect(), "image_sizes", "image, bytes, failure", "image"),
            "INSERT OR REPLACE INTO image_sizes (image, bytes, failure) VALUES (?, ?, ?)");
  EXPECT_EQ(sql::replace_into(postgres_dialect(), "image_sizes", "image, bytes, failure", "image"),
            "INSERT INTO image_sizes (image, bytes, failure) VALUES (?, ?, ?) ON CONFLICT (image) "
            "DO UPDATE SET bytes = excluded.bytes, failure = excluded.failure");
  EXPECT_EQ(sql::insert_or_ignore(sqlite_dialect(), "seen", "a, b, c", "a, b"),
            "INSERT OR IGNORE INTO seen (a, b, c) VALUES (?, ?, ?)");
  EXPECT_EQ(sql::insert_or_ignore(postgres_dialect(), "seen", "a, b, c", "a, b"),
            "INSERT INTO seen (a, b, c) VALUES (?, ?, ?) ON CONFLICT (a, b) DO NOTHING");
  EXPECT_EQ(sql::assignments("a, b"), "a = ?, b = ?");
}

TEST(BudgetPolicy, ACapCountsOnlyForItsPipelineTeamAndUser) {
  ReservationRecord r;
  r.pipeline = "train";
  r.team = "vision";
  r.user = "ada";
  LedgerCap all;
  EXPECT_TRUE(sql::cap_applies(all, r));
  LedgerCap other = all;
  other.pipeline = "eval";
  EXPECT_FALSE(sql::cap_applies(other, r));
  LedgerCap team = all;
  team.team = "vision";
  EXPECT_TRUE(sql::cap_applies(team, r));
  team.user = "bob";
  EXPECT_FALSE(sql::cap_applies(team, r));
}

TEST(BudgetPolicy, HeadroomHoldsUpToTheCapAndAJobWithNoEstimateNeedsSomeLeft) {
  LedgerCap cap;
  cap.usd = 10;
  EXPECT_TRUE(sql::has_headroom(cap, 4, 6));  // exactly the cap
  EXPECT_FALSE(sql::has_headroom(cap, 4, 6.01));
  EXPECT_TRUE(sql::has_headroom(cap, 9.99, 0));
  EXPECT_FALSE(sql::has_headroom(cap, 10, 0));  // nothing left, even for a $0 estimate
}

TEST(SchemaSteps, OneListFilledInPerDatabase) {
  const auto& lite = store_sql::schema_steps(store_sql::Engine::kSqlite);
  const auto& post = store_sql::schema_steps(store_sql::Engine::kPostgres);
  ASSERT_EQ(lite.size(), post.size());
  for (size_t i = 0; i < lite.size(); ++i) {
    EXPECT_EQ(lite[i].find('{'), std::string::npos) << "step " << i + 1;
    EXPECT_EQ(post[i].find('{'), std::string::npos) << "step " << i + 1;
  }
  EXPECT_NE(lite[0].find("row_id INTEGER PRIMARY KEY,"), std::string::npos);
  EXPECT_NE(post[0].find("row_id BIGSERIAL PRIMARY KEY,"), std::string::npos);
  EXPECT_NE(post[0].find("owner_pid BIGINT NOT NULL DEFAULT 0,\n          seq BIGSERIAL NOT NULL"),
            std::string::npos);
  EXPECT_EQ(lite[0].find("seq"), std::string::npos);
  EXPECT_EQ(lite[5], post[5]);  // the queue: portable SQL, the same text on both
}

}  // namespace
}  // namespace burst
