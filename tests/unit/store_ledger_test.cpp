// Store contract for burstd's durable queue and money ledger (include/burst/store.h, issue 20),
// on SQLite: queue rows in order with their hold, reservations that hold only when every cap
// has room, spend entries keyed by pod and interval that a second write never adds to.
#include <gtest/gtest.h>

#include "burst/store.h"
#include "fakes/temp_dir.h"

namespace burst {
namespace {

std::unique_ptr<Store> memory_store() {
  auto s = open_sqlite_store(":memory:");
  EXPECT_TRUE(s.ok()) << s.error().message;
  return std::move(*s);
}

QueuedJobRecord queued(const std::string& id, int64_t at) {
  QueuedJobRecord q;
  q.id = id;
  q.pipeline = "p";
  q.spec_path = "/specs/p.yaml";
  q.spec_text = "name: p\nrun: true\n";
  q.reason = "submitted";
  q.queued_ms = at;
  return q;
}

ReservationRecord reservation(const std::string& job, double usd,
                              const std::string& day = "2026-01-01",
                              const std::string& pipeline = "p") {
  ReservationRecord r;
  r.job_id = job;
  r.pipeline = pipeline;
  r.usd = usd;
  r.day = day;
  r.month = day.substr(0, 7);
  r.reserved_ms = 1;
  return r;
}

SpendRecord spend(const std::string& job, int64_t pod, int64_t from, int64_t to, double usd) {
  SpendRecord e;
  e.pod_row_id = pod;
  e.from_ms = from;
  e.to_ms = to;
  e.usd = usd;
  e.job_id = job;
  e.pipeline = "p";
  e.day = "2026-01-01";
  e.month = "2026-01";
  return e;
}

const LedgerCap kDay{"day", "", 1.0, "burstd budget.usd_per_day"};

TEST(StoreQueue, RowsComeBackOldestFirstWithTheirHoldUntilRemoved) {
  auto store = memory_store();
  ASSERT_TRUE(store->add_queued(queued("b", 20)).ok());
  ASSERT_TRUE(store->add_queued(queued("a", 10)).ok());
  auto again = store->add_queued(queued("a", 30));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kInvalid);
  ASSERT_TRUE(store->set_queued_hold("b", "budget: burstd budget.usd_per_day").ok());

  auto rows = store->queued_jobs();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].id, "a");
  EXPECT_EQ((*rows)[0].spec_text, "name: p\nrun: true\n");
  EXPECT_EQ((*rows)[1].held_by, "budget: burstd budget.usd_per_day");

  ASSERT_TRUE(store->remove_queued("a").ok());
  EXPECT_EQ(store->remove_queued("a").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store->set_queued_hold("a", "x").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store->queued_jobs()->size(), 1u);
}

TEST(StoreQueue, RowsOutliveTheConnection) {
  TempDir dir;
  const std::string path = dir.path() + "/state.db";
  {
    auto store = open_sqlite_store(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->add_queued(queued("a", 10)).ok());
  }
  auto store = open_sqlite_store(path);
  ASSERT_TRUE(store.ok());
  ASSERT_EQ((*store)->queued_jobs()->size(), 1u);
}

TEST(StoreLedger, ReservationHoldsOnlyWhileEveryCapHasRoom) {
  auto store = memory_store();
  const LedgerCap month{"month", "", 10.0, "burstd budget.usd_per_month"};
  EXPECT_EQ(*store->reserve(reservation("a", 0.6), {kDay, month}), "");
  EXPECT_EQ(*store->reserve(reservation("b", 0.6), {kDay, month}), "burstd budget.usd_per_day")
      << "0.6 reserved + 0.6 > 1.0";
  EXPECT_EQ(store->open_reservations()->size(), 1u) << "a refused reservation writes nothing";
  EXPECT_EQ(*store->reserve(reservation("b", 0.4), {kDay, month}), "");
  EXPECT_EQ(*store->reserve(reservation("c", 0.0), {kDay, month}), "burstd budget.usd_per_day")
      << "nothing left: even a job with no estimate waits";
  EXPECT_EQ(*store->reserve(reservation("c", 0.5, "2026-01-02"), {kDay, month}), "")
      << "another day has its own cap";
  EXPECT_NEAR(*store->committed_usd(month, "", "2026-01", ""), 1.5, 1e-9);
}

TEST(StoreLedger, CommittedIsSpendPlusTheUnspentRestOfOpenReservations) {
  auto store = memory_store();
  ASSERT_EQ(*store->reserve(reservation("a", 0.5), {kDay}), "");
  ASSERT_TRUE(store->record_spend(spend("a", 1, 100, 200, 0.2)).ok());
  EXPECT_NEAR(*store->committed_usd(kDay, "2026-01-01", "", "x"), 0.5, 1e-9) << "0.2 + 0.3 left";
  EXPECT_NEAR(*store->committed_usd(kDay, "2026-01-01", "", "a"), 0.0, 1e-9) << "its own";
  ASSERT_TRUE(store->record_spend(spend("a", 1, 100, 900, 0.7)).ok());
  EXPECT_NEAR(*store->committed_usd(kDay, "2026-01-01", "", "x"), 0.7, 1e-9) << "overran: spend";
  ASSERT_TRUE(store->release_reservation("a", 1000).ok());
  EXPECT_TRUE(store->open_reservations()->empty());
  EXPECT_NEAR(*store->committed_usd(kDay, "2026-01-01", "", "x"), 0.7, 1e-9);
  const LedgerCap other{"day", "q", 1.0, "pipeline q"};
  EXPECT_NEAR(*store->committed_usd(other, "2026-01-01", "", "x"), 0.0, 1e-9);
}

TEST(StoreLedger, SpendOfOnePodIntervalIsExtendedNeverAddedTwice) {
  auto store = memory_store();
  ASSERT_TRUE(store->record_spend(spend("a", 7, 100, 200, 0.1)).ok());
  ASSERT_TRUE(store->record_spend(spend("a", 7, 100, 200, 0.1)).ok());
  ASSERT_TRUE(store->record_spend(spend("a", 7, 100, 500, 0.4)).ok());
  ASSERT_TRUE(store->record_spend(spend("a", 7, 100, 300, 0.2)).ok()) << "older: ignored";
  ASSERT_TRUE(store->record_spend(spend("a", 8, 100, 150, 0.05)).ok());
  auto rows = store->spend_of_job("a");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].to_ms, 500);
  EXPECT_NEAR((*rows)[0].usd, 0.4, 1e-9);
  EXPECT_NEAR(*store->committed_usd(kDay, "2026-01-01", "", ""), 0.45, 1e-9);
}

}  // namespace
}  // namespace burst
