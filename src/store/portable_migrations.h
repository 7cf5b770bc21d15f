// The schema steps written in SQL that SQLite and PostgreSQL both run unchanged (types both
// accept: VARCHAR, TEXT, BIGINT, DOUBLE PRECISION), shared by sqlite_schema.cpp and
// postgres_schema.cpp so the two lists cannot drift. Never edit a released step; append one.
#pragma once

namespace burst::store_sql {

// 6 (queue, issue 20): burstd's durable queue; a job is a row before `burst submit` returns
// and until it ends, so kill -9, drain and restart lose nothing (docs/daemon.md).
inline constexpr const char* kQueueStep = R"sql(
        CREATE TABLE job_queue (
          id VARCHAR(64) PRIMARY KEY,
          pipeline TEXT NOT NULL,
          spec_path TEXT NOT NULL,
          spec_text TEXT NOT NULL,
          reason TEXT NOT NULL,
          queued_ms BIGINT NOT NULL,
          held_by TEXT NOT NULL
        );
        CREATE INDEX job_queue_queued_ms ON job_queue(queued_ms);
      )sql";

// 7 (ledger, issue 20): reservations against the budget caps and spend per pod interval.
// No foreign keys: a reservation is written before its job's record exists.
inline constexpr const char* kLedgerStep = R"sql(
        CREATE TABLE ledger_reservations (
          job_id VARCHAR(64) PRIMARY KEY,
          pipeline TEXT NOT NULL,
          usd DOUBLE PRECISION NOT NULL,
          day VARCHAR(10) NOT NULL,
          month VARCHAR(7) NOT NULL,
          reserved_ms BIGINT NOT NULL,
          released_ms BIGINT NOT NULL
        );
        CREATE INDEX ledger_reservations_day ON ledger_reservations(day);
        CREATE INDEX ledger_reservations_month ON ledger_reservations(month);
        CREATE TABLE ledger_spend (
          pod_row_id BIGINT NOT NULL,
          from_ms BIGINT NOT NULL,
          to_ms BIGINT NOT NULL,
          usd DOUBLE PRECISION NOT NULL,
          job_id VARCHAR(64) NOT NULL,
          pipeline TEXT NOT NULL,
          day VARCHAR(10) NOT NULL,
          month VARCHAR(7) NOT NULL,
          PRIMARY KEY (pod_row_id, from_ms)
        );
        CREATE INDEX ledger_spend_job ON ledger_spend(job_id);
        CREATE INDEX ledger_spend_day ON ledger_spend(day);
        CREATE INDEX ledger_spend_month ON ledger_spend(month);
      )sql";

// 8 (leases, issue 20): which daemon holds a queued job and until when (Store::claim_queued).
inline constexpr const char* kLeaseStep = R"sql(
        ALTER TABLE job_queue ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
        ALTER TABLE job_queue ADD COLUMN lease_expires_ms BIGINT NOT NULL DEFAULT 0;
      )sql";

// 9 (team and user budgets, issue 20): who submitted a queued job, and the team and user a
// reservation counts for (LedgerCap::team, ::user).
inline constexpr const char* kTeamBudgetStep = R"sql(
        ALTER TABLE job_queue ADD COLUMN submitted_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE ledger_reservations ADD COLUMN team TEXT NOT NULL DEFAULT '';
        ALTER TABLE ledger_reservations ADD COLUMN user_name TEXT NOT NULL DEFAULT '';
      )sql";

// 10 (image sizes, issue 18): each image's compressed size as its registry said it, the plan's
// image-pull term (Store::put_image_size).
inline constexpr const char* kImageSizeStep = R"sql(
        CREATE TABLE image_sizes (
          image VARCHAR(600) PRIMARY KEY,
          bytes BIGINT NOT NULL,
          fetched_ms BIGINT NOT NULL,
          failure TEXT NOT NULL
        );
      )sql";

// 11 (team caps in the store, issue 35): the caps a team sets with `burst caps set` (Store::
// set_cap). Step 12, their audit, is each dialect's own (its ordering column).
inline constexpr const char* kCapsStep = R"sql(
        CREATE TABLE budget_caps (
          scope VARCHAR(16) NOT NULL,
          subject VARCHAR(128) NOT NULL,
          period VARCHAR(8) NOT NULL,
          usd DOUBLE PRECISION NOT NULL,
          set_by TEXT NOT NULL,
          set_ms BIGINT NOT NULL,
          PRIMARY KEY (scope, subject, period)
        );
      )sql";
}  // namespace burst::store_sql
