#include "store/sqlite_stmt.h"

#include <utility>

namespace burst::sqlite {

Error db_error(sqlite3* db, const std::string& op) {
  const char* msg = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  return make_error(ErrorCode::kInternal, "store: " + op + ": " + msg);
}

Status exec(sqlite3* db, const char* sql, const std::string& op) {
  char* msg = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string text = msg != nullptr ? msg : sqlite3_errstr(rc);
  sqlite3_free(msg);
  return make_error(ErrorCode::kInternal, "store: " + op + ": " + text);
}

Result<Stmt> Stmt::prepare(sqlite3* db, const char* sql, std::string op) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return db_error(db, op);
  }
  return Stmt(db, stmt, std::move(op));
}

Stmt::Stmt(sqlite3* db, sqlite3_stmt* stmt, std::string op)
    : db_(db), stmt_(stmt), op_(std::move(op)) {}

Stmt& Stmt::check_bind(int rc) {
  if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) bind_rc_ = rc;
  ++next_index_;
  return *this;
}

Stmt& Stmt::bind(const std::string& value) {
  return check_bind(sqlite3_bind_text(stmt_.get(), next_index_, value.data(),
                                      static_cast<int>(value.size()), SQLITE_TRANSIENT));
}

Stmt& Stmt::bind(int64_t value) {
  return check_bind(sqlite3_bind_int64(stmt_.get(), next_index_, value));
}

Stmt& Stmt::bind(int value) {
  return check_bind(sqlite3_bind_int(stmt_.get(), next_index_, value));
}

Stmt& Stmt::bind(double value) {
  return check_bind(sqlite3_bind_double(stmt_.get(), next_index_, value));
}

Stmt& Stmt::bind_null() { return check_bind(sqlite3_bind_null(stmt_.get(), next_index_)); }

Result<bool> Stmt::step() {
  if (bind_rc_ != SQLITE_OK) {
    return make_error(ErrorCode::kInternal,
                      "store: " + op_ + ": bind: " + std::string(sqlite3_errstr(bind_rc_)));
  }
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  failed_rc_ = sqlite3_extended_errcode(db_);
  return db_error(db_, op_);
}

bool Stmt::duplicate_key() const {
  return failed_rc_ == SQLITE_CONSTRAINT_PRIMARYKEY || failed_rc_ == SQLITE_CONSTRAINT_UNIQUE;
}

std::string Stmt::text(int col) const {
  const unsigned char* data = sqlite3_column_text(stmt_.get(), col);
  if (data == nullptr) return {};
  int size = sqlite3_column_bytes(stmt_.get(), col);
  return std::string(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
}

int64_t Stmt::int64(int col) const { return sqlite3_column_int64(stmt_.get(), col); }

double Stmt::real(int col) const { return sqlite3_column_double(stmt_.get(), col); }

const sql::Dialect& Db::dialect() const {
  static const sql::Dialect kSqlite{"rowid", "", "", "?", true};
  return kSqlite;
}

Result<std::unique_ptr<sql::Stmt>> Db::prepare(const std::string& sql, std::string op) {
  Result<Stmt> stmt = Stmt::prepare(db_.get(), sql.c_str(), std::move(op));
  if (!stmt) return stmt.error();
  return std::unique_ptr<sql::Stmt>(std::make_unique<Stmt>(std::move(stmt).value()));
}

Status Db::begin(sql::Lock, const std::string& what) {
  return exec("BEGIN IMMEDIATE", "begin " + what);
}

}  // namespace burst::sqlite
