// The small dialect layer under the one SQL store: a connection (Db) that prepares statements
// (Stmt) with positional "?" parameters bound in order, steps through their rows, runs SQL without
// parameters and begins a write transaction; plus the few facts where SQLite's and PostgreSQL's
// SQL differ (Dialect). Everything above it (sql_store.cpp, sql_jobs.cpp, sql_caches.cpp,
// sql_queue.cpp, sql_ledger.cpp, sql_rows.cpp) is written once for both databases; the two
// implementations are sqlite_db.cpp (over sqlite_stmt.h) and pg_db.cpp (over pg_conn.h).
// Every failure is Error{kInternal, or kConnection when a server connection was lost,
// "store: <operation>: <database message>"}; no message carries a connection string.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "burst/result.h"

namespace burst::sql {

// Where the two dialects spell the same thing differently.
struct Dialect {
  // Orders rows inserted in the same millisecond: SQLite's implicit "rowid", PostgreSQL's "seq".
  const char* insertion_order;
  // Appended to a SELECT inside a write transaction so the rows read stay as read until commit
  // (PostgreSQL " FOR UPDATE"; "" in SQLite, whose write transaction locks the whole file).
  const char* lock_rows;
  // Appended to a SELECT picking one row to take: other takers pass over it (PostgreSQL
  // " FOR UPDATE SKIP LOCKED"; "" in SQLite).
  const char* skip_locked;
  // A text parameter compared with '' ("?"; PostgreSQL cannot infer its type: "?::text").
  const char* text_param;
  // Upserts as SQLite has always written them (INSERT OR REPLACE / OR IGNORE), else ON CONFLICT.
  bool insert_or_replace;
};

// "INSERT ... (columns) VALUES (?, ...)" that replaces the row with the same `keys` (a prefix of
// `columns`, comma-separated like them): INSERT OR REPLACE, or ON CONFLICT (keys) DO UPDATE SET
// every other column.
std::string replace_into(const Dialect& d, const std::string& table, const std::string& columns,
                         const std::string& keys);
// The same that leaves an existing row as it is: INSERT OR IGNORE, or ON CONFLICT DO NOTHING.
std::string insert_or_ignore(const Dialect& d, const std::string& table, const std::string& columns,
                             const std::string& keys);
// "?, ?, ?" for each of the comma-separated columns.
std::string placeholders(const std::string& columns);
// "a = ?, b = ?" for each of them.
std::string assignments(const std::string& columns);

// One row of a result: columns by index. NULL reads as "" or 0.
class Row {
 public:
  virtual ~Row() = default;
  virtual std::string text(int col) const = 0;
  virtual int64_t int64(int col) const = 0;
  virtual double real(int col) const = 0;
};

// A statement: bind() fills the next "?" (a failed bind shows in the next step()); step() gives
// the next row (true) or says the statement is done (false); the columns read the current row.
class Stmt : public Row {
 public:
  virtual Stmt& bind(const std::string& value) = 0;
  virtual Stmt& bind(int64_t value) = 0;
  virtual Stmt& bind(double value) = 0;
  Stmt& bind(int value) { return bind(static_cast<int64_t>(value)); }

  virtual Result<bool> step() = 0;
  // Rows the finished write changed.
  virtual int64_t changes() const = 0;
  // Whether the last failure was a primary or unique key refusing the row.
  virtual bool duplicate_key() const = 0;

  // Steps to completion, ignoring any rows.
  Status run();
  // Runs a write; kNotFound with `missing` when it changed no row.
  Status run_changing(const std::string& missing);
};

using Prepared = Result<std::unique_ptr<Stmt>>;

// Which lock a write transaction takes at its start.
enum class Lock {
  kWrite,   // SQLite: the file's write lock (BEGIN IMMEDIATE); PostgreSQL: row locks as taken
  kLedger,  // and, in PostgreSQL, the ledger's advisory lock: reservations one after the other
};

// One connection. Not thread-safe: the store holds its lock around each call.
class Db {
 public:
  virtual ~Db() = default;
  virtual const Dialect& dialect() const = 0;
  virtual Prepared prepare(const std::string& sql, std::string op) = 0;
  // SQL without parameters (transaction control, DDL).
  virtual Status exec(const std::string& sql, const std::string& op) = 0;
  // "begin <what>"; PostgreSQL's ledger lock is "lock the ledger". On failure nothing is left
  // open.
  virtual Status begin(Lock lock, const std::string& what) = 0;
  // Before each store call, outside any transaction: a server connection that was dropped is
  // opened again (a failed reconnect shows in the next statement).
  virtual void refresh() {}
};

// A write transaction: rolled back ("roll back <what>") unless commit() succeeded.
class Transaction {
 public:
  Transaction(Db& db, std::string what) : db_(db), what_(std::move(what)) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  Status begin(Lock lock);
  Status commit();  // "commit <what>"

 private:
  Db& db_;
  std::string what_;
  bool open_ = false;
};

// Steps a bound statement to the end, turning each row into a T with `read(const Row&)`.
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
template <typename T>
Result<std::vector<T>> collect(Stmt& stmt, T (*read)(const Row&)) {
  return collect<T, T (*)(const Row&)>(stmt, read);
}
// The same for a reader that can fail (a stored value this burst does not know): the first
// failing row's error is the answer.
template <typename T>
Result<std::vector<T>> collect(Stmt& stmt, Result<T> (*read)(const Row&)) {
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

}  // namespace burst::sql
