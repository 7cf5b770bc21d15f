// Thin RAII wrappers over the SQLite C API for the store adapter. Every failure becomes
// Error{kInternal, "store: <operation>: <sqlite3_errmsg>"}. Only src/store/ includes sqlite3.h.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "burst/result.h"

namespace burst::sqlite {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;

// Error{kInternal, "store: <op>: <sqlite3_errmsg(db)>"}.
Error db_error(sqlite3* db, const std::string& op);

// Runs SQL that takes no parameters (DDL, transaction control, pragmas) via sqlite3_exec.
Status exec(sqlite3* db, const char* sql, const std::string& op);

// A prepared statement with positional binding: each bind() fills the next "?". A failed bind is
// remembered and reported by the next step(), so call sites can chain binds.
class Stmt {
 public:
  static Result<Stmt> prepare(sqlite3* db, const char* sql, std::string op);

  Stmt& bind(const std::string& value);
  Stmt& bind(int64_t value);
  Stmt& bind(int value);
  Stmt& bind(double value);
  Stmt& bind_null();

  // Advances one row: true when a row is ready to read, false when the statement is done.
  Result<bool> step();
  // Steps to completion, ignoring any rows.
  Status run();

  std::string text(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
  };

  Stmt(sqlite3* db, sqlite3_stmt* stmt, std::string op);
  Stmt& check_bind(int rc);

  sqlite3* db_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  std::string op_;
  int next_index_ = 1;
  int bind_rc_ = SQLITE_OK;
};

// Steps a bound statement to the end, turning each row into a T with `read(const Stmt&)`.
template <typename T, typename Read>
Result<std::vector<T>> collect(Stmt& stmt, Read read) {
  std::vector<T> out;
  while (true) {
    Result<bool> row = stmt.step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back(read(stmt));
  }
}
// The same, with T taken from a reader function's return type.
template <typename T>
Result<std::vector<T>> collect(Stmt& stmt, T (*read)(const Stmt&)) {
  return collect<T, T (*)(const Stmt&)>(stmt, read);
}
// The same for a reader that can fail (a stored value this burst does not know): the first
// failing row's error is the answer.
template <typename T>
Result<std::vector<T>> collect(Stmt& stmt, Result<T> (*read)(const Stmt&)) {
  std::vector<T> out;
  while (true) {
    Result<bool> row = stmt.step();
    if (!row) return row.error();
    if (!*row) return out;
    Result<T> value = read(stmt);
    if (!value) return value.error();
    out.push_back(std::move(*value));
  }
}

}  // namespace burst::sqlite
