#include "store/postgres_schema.h"

#include <string>
#include <vector>

#include "store/pg_conn.h"
#include "store/schema_steps.h"

namespace burst::pg {
namespace {

// pg_advisory_xact_lock key for migrations ("burstmig" as bytes); the ledger uses another.
constexpr const char* kMigrationLock = "SELECT pg_advisory_xact_lock(7166740835716098407)";

const std::vector<std::string>& migrations() {
  return store_sql::schema_steps(store_sql::Engine::kPostgres);
}

Status apply(PGconn* conn) {
  if (Status locked = exec(conn, kMigrationLock, "lock for migration"); !locked) return locked;
  Status made = exec(conn, "CREATE TABLE IF NOT EXISTS burst_schema (version INTEGER NOT NULL)",
                     "create the schema version table");
  if (!made) return made;
  Result<int> version = schema_version(conn);
  if (!version) return version.error();
  if (*version > current_schema_version())
    return make_error(ErrorCode::kInvalid,
                      "store: the PostgreSQL database has schema version " +
                          std::to_string(*version) + "; this burst understands up to " +
                          std::to_string(current_schema_version()) + ": upgrade burst");
  for (int v = *version; v < current_schema_version(); ++v) {
    Status step = exec(conn, migrations()[static_cast<size_t>(v)].c_str(),
                       "migrate schema to version " + std::to_string(v + 1));
    if (!step) return step;
  }
  if (*version == current_schema_version()) return Status::Ok();
  Query set(*version == 0 ? "INSERT INTO burst_schema (version) VALUES (?)"
                          : "UPDATE burst_schema SET version = ?",
            "set schema version");
  set.bind(current_schema_version());
  Result<Rows> done = set.run(conn);
  return done ? Status::Ok() : Status(done.error());
}

}  // namespace

int current_schema_version() { return static_cast<int>(migrations().size()); }

Result<int> schema_version(PGconn* conn) {
  Query q("SELECT max(version) FROM burst_schema", "read schema version");
  Result<Rows> rows = q.run(conn);
  if (!rows) return rows.error();
  return rows->size() == 0 ? 0 : static_cast<int>(rows->int64(0, 0));
}

Status migrate(PGconn* conn) {
  if (Status begun = exec(conn, "BEGIN", "begin migration"); !begun) return begun;
  Status done = apply(conn);
  if (done) done = exec(conn, "COMMIT", "commit migration");
  if (!done) (void)exec(conn, "ROLLBACK", "roll back migration");  // best effort
  return done;
}

}  // namespace burst::pg
