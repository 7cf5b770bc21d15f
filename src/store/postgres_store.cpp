// The PostgreSQL Store: one connection per instance (sql_store.h over pg_conn.h's Db), every
// statement with bound parameters; and open_store, which picks the database from the config.
#include <utility>

#include "burst/store.h"
#include "store/pg_conn.h"
#include "store/postgres_schema.h"
#include "store/sql_store.h"

namespace burst {

Result<std::unique_ptr<Store>> open_postgres_store(const std::string& conninfo) {
  Result<pg::ConnPtr> conn = pg::connect(conninfo);
  if (!conn) return conn.error();
  // Quiet NOTICEs (CREATE TABLE IF NOT EXISTS on a migrated database) instead of stderr.
  PQsetNoticeProcessor(
      conn->get(), [](void*, const char*) {}, nullptr);
  if (Status migrated = pg::migrate(conn->get()); !migrated) return migrated.error();
  return sql::make_store(std::make_unique<pg::Db>(std::move(conn).value()));
}

Result<std::unique_ptr<Store>> open_store(const std::string& store_url,
                                          const std::string& db_path) {
  if (store_url.empty()) return open_sqlite_store(db_path);
  if (!is_postgres_url(store_url))
    return make_error(ErrorCode::kInvalid, "store " + redact_store_url(store_url) +
                                               ": not a postgres:// or postgresql:// URL");
  return open_postgres_store(store_url);
}

}  // namespace burst
