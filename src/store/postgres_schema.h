// The PostgreSQL schema: the same tables, columns and stored strings as SQLite's
// (sqlite_schema.cpp), step for step, in PostgreSQL's dialect where the two differ (BIGSERIAL for
// SQLite's rowid keys, a `seq` column where SQLite orders by rowid). The version lives in the
// table burst_schema, in the connection's current schema (search_path).
#pragma once

#include <libpq-fe.h>

#include "burst/result.h"

namespace burst::pg {

// The number of migration steps; equal to SQLite's (tests/contract/store_contract_test.cpp).
int current_schema_version();

// Migrates to the current version in one transaction under an advisory lock, so daemons starting
// at once migrate once. kInvalid when the database is from a newer burst.
Status migrate(PGconn* conn);

// The schema version the database is at (0 when burst never migrated it).
Result<int> schema_version(PGconn* conn);

}  // namespace burst::pg
