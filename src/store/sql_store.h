// The one Store over the dialect layer: each call takes the connection lock (one statement at a
// time on the connection), lets the connection reopen itself if the server dropped it, and runs
// the call written once for both databases (sql_jobs.h, sql_caches.h, sql_ledger.h).
// open_sqlite_store (sqlite_store.cpp) and open_postgres_store (postgres_store.cpp) make one.
#pragma once

#include <memory>

#include "burst/store.h"
#include "store/sql_db.h"

namespace burst::sql {

std::unique_ptr<Store> make_store(std::unique_ptr<Db> db);

}  // namespace burst::sql
