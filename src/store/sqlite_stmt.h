// Thin RAII wrappers over the SQLite C API: SQLite's side of the dialect layer (sql_db.h; the
// connection is sqlite_db.cpp). Every failure becomes Error{kInternal, "store: <operation>:
// <sqlite3_errmsg>"}. Only src/store/ includes sqlite3.h.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "burst/result.h"
#include "store/sql_db.h"

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
class Stmt final : public sql::Stmt {
 public:
  static Result<Stmt> prepare(sqlite3* db, const char* sql, std::string op);

  Stmt& bind(const std::string& value) override;
  Stmt& bind(int64_t value) override;
  Stmt& bind(int value);
  Stmt& bind(double value) override;
  Stmt& bind_null();

  // Advances one row: true when a row is ready to read, false when the statement is done.
  Result<bool> step() override;
  int64_t changes() const override { return sqlite3_changes(db_); }
  bool duplicate_key() const override;

  std::string text(int col) const override;
  int64_t int64(int col) const override;
  double real(int col) const override;

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
  int failed_rc_ = SQLITE_OK;  // the extended code of the last failed step
};

// The connection as the dialect layer sees it: statements are Stmt, a write transaction is
// BEGIN IMMEDIATE (it takes the file's write lock first, so two processes sharing the file write
// one after the other, each seeing the other's rows).
class Db final : public sql::Db {
 public:
  explicit Db(DbPtr db) : db_(std::move(db)) {}
  const sql::Dialect& dialect() const override;
  Result<std::unique_ptr<sql::Stmt>> prepare(const std::string& sql, std::string op) override;
  Status exec(const std::string& sql, const std::string& op) override {
    return sqlite::exec(db_.get(), sql.c_str(), op);
  }
  Status begin(sql::Lock lock, const std::string& what) override;

 private:
  DbPtr db_;
};

}  // namespace burst::sqlite
