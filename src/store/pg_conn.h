// Thin RAII wrappers over libpq: PostgreSQL's side of the dialect layer (sql_db.h), shaped like
// sqlite_stmt.h: statements are written with "?" placeholders (rewritten to $1..$n) and bound in
// order; every value travels as text. Every failure becomes
// Error{kInternal or kConnection, "store: <operation>: <server message>"}; no message carries the
// connection string. Only src/store/ includes libpq-fe.h; libpq itself is loaded on first use
// (libpq_api.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "burst/result.h"
#include "store/libpq_calls.h"
#include "store/sql_db.h"

namespace burst::pg {

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using ConnPtr = std::unique_ptr<PGconn, ConnCloser>;

// Loads libpq (kUnavailable when it is not installed) and connects (10 s connect timeout unless
// the string sets one); kConnection, with the target redacted (redact_store_url) and libpq's
// reason, when the server cannot be reached.
Result<ConnPtr> connect(const std::string& conninfo);

// Before each store operation (never inside a transaction): a connection the server dropped
// (restart, failover, idle timeout) is opened again. A failed reconnect shows in the next call.
void reconnect_if_lost(PGconn* conn);

// SQLSTATE 23505: a unique or primary key constraint refused the row.
inline constexpr const char* kUniqueViolation = "23505";

// The rows a statement returned (or none, for a write; affected() counts what it changed).
class Rows {
 public:
  int size() const { return res_ ? PQntuples(res_.get()) : 0; }
  int64_t affected() const;
  bool null(int row, int col) const { return PQgetisnull(res_.get(), row, col) != 0; }
  std::string text(int row, int col) const;  // "" for NULL
  int64_t int64(int row, int col) const;     // 0 for NULL
  double real(int row, int col) const;       // 0 for NULL

 private:
  friend class Query;
  struct Clear {
    void operator()(PGresult* r) const { PQclear(r); }
  };
  std::unique_ptr<PGresult, Clear> res_;
};

// One statement with positional parameters: each bind() fills the next "?".
class Query {
 public:
  Query(const std::string& sql, std::string op);

  Query& bind(const std::string& value);
  Query& bind(int64_t value);
  Query& bind(int value) { return bind(static_cast<int64_t>(value)); }
  Query& bind(double value);

  // Sends it and waits for the answer. On failure sqlstate() says why.
  Result<Rows> run(PGconn* conn);
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sql_;
  std::string op_;
  std::vector<std::string> params_;
  std::string sqlstate_;
};

// Runs SQL without parameters, several statements allowed (DDL, BEGIN/COMMIT/ROLLBACK).
Status exec(PGconn* conn, const std::string& sql, const std::string& op);

// The connection as the dialect layer sees it: a statement is sent when first stepped and its
// rows are then read in order; a write transaction is BEGIN, and the ledger's also takes a
// transaction-scoped advisory lock, so daemons on several machines reserve one after the other.
class Db final : public sql::Db {
 public:
  explicit Db(ConnPtr conn) : conn_(std::move(conn)) {}
  const sql::Dialect& dialect() const override;
  Result<std::unique_ptr<sql::Stmt>> prepare(const std::string& sql, std::string op) override;
  Status exec(const std::string& sql, const std::string& op) override {
    return pg::exec(conn_.get(), sql, op);
  }
  Status begin(sql::Lock lock, const std::string& what) override;
  void refresh() override { reconnect_if_lost(conn_.get()); }

 private:
  ConnPtr conn_;
};

}  // namespace burst::pg
