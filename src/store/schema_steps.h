// The schema migration steps, one list for SQLite and PostgreSQL (schema_steps.cpp): the same
// tables, columns and stored strings on both, step for step. sqlite_schema.cpp and
// postgres_schema.cpp apply them, each with its own version record and lock.
#pragma once

#include <string>
#include <vector>

namespace burst::store_sql {

enum class Engine { kSqlite, kPostgres };

// Step i takes schema version i to i + 1; the size is the current version.
const std::vector<std::string>& schema_steps(Engine engine);

}  // namespace burst::store_sql
