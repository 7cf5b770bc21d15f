// Opening the state database: the file (owner-only), the connection settings and the schema
// migrations, versioned with PRAGMA user_version.
#pragma once

#include <string>

#include "burst/result.h"
#include "store/sqlite_stmt.h"

namespace burst::sqlite {

// The schema version this code migrates to: the number of migration steps.
int current_schema_version();

// Opens `path` (":memory:" for an in-memory database), creating the file with mode 0600 and its
// parent directory with mode 0700 when missing; sets WAL journal mode (files only), a 5 s busy
// timeout and foreign keys; and migrates the schema. kInvalid when the file is from a newer burst.
Result<DbPtr> open_database(const std::string& path);

}  // namespace burst::sqlite
