// The SQLite Store: one connection per instance (sql_store.h over sqlite_stmt.h's Db). Several
// instances (and processes) may share one file: WAL mode lets readers and a writer overlap, and
// the busy timeout makes a second writer wait instead of failing.
#include <utility>

#include "burst/store.h"
#include "store/sql_store.h"
#include "store/sqlite_schema.h"
#include "store/sqlite_stmt.h"

namespace burst {

Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path) {
  Result<sqlite::DbPtr> db = sqlite::open_database(path);
  if (!db) return db.error();
  return sql::make_store(std::make_unique<sqlite::Db>(std::move(db).value()));
}

}  // namespace burst
