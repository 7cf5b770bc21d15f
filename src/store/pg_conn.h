// Thin RAII wrappers over libpq for the PostgreSQL store adapter, shaped like sqlite_stmt.h so the
// two adapters read alike: statements are written with "?" placeholders (rewritten to $1..$n) and
// bound in order; every value travels as text. Every failure becomes
// Error{kInternal or kConnection, "store: <operation>: <server message>"}; no message carries the
// connection string. Only src/store/ includes libpq-fe.h; libpq itself is loaded on first use
// (libpq_api.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "burst/result.h"
#include "store/libpq_calls.h"

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

// Converts a result's rows with `read(const Rows&, int row)`.
template <typename T, typename Read>
std::vector<T> collect(const Rows& rows, Read read) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int r = 0; r < rows.size(); ++r) out.push_back(read(rows, r));
  return out;
}

}  // namespace burst::pg
