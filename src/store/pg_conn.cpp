#include "store/pg_conn.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "burst/store.h"
#include "util/decimal.h"

namespace burst::pg {
namespace {

// libpq's messages end with a newline and may span lines; one line reads better in a log.
std::string one_line(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s;
}

Error conn_error(PGconn* conn, const std::string& op) {
  const bool lost = PQstatus(conn) != CONNECTION_OK;
  return make_error(lost ? ErrorCode::kConnection : ErrorCode::kInternal,
                    "store: " + op + ": " + one_line(PQerrorMessage(conn)));
}

// "?" -> "$1", "$2", ... (burst's SQL has no "?" inside literals).
std::string numbered(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  for (char c : sql) {
    if (c == '?')
      out += "$" + std::to_string(++n);
    else
      out += c;
  }
  return out;
}

}  // namespace

Result<ConnPtr> connect(const std::string& conninfo) {
  if (Status loaded = libpq_dl::load(); !loaded)
    return make_error(loaded.error().code, "store: " + loaded.error().message);
  // Processed in order, the later winning: the caller's string (expanded from dbname) overrides
  // these defaults.
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"10", "burst", conninfo.c_str(), nullptr};
  ConnPtr conn(PQconnectdbParams(keys, values, /*expand_dbname=*/1));
  if (!conn) return make_error(ErrorCode::kInternal, "store: out of memory connecting");
  if (PQstatus(conn.get()) != CONNECTION_OK)
    return make_error(ErrorCode::kConnection, "store: connect to " + redact_store_url(conninfo) +
                                                  ": " + one_line(PQerrorMessage(conn.get())));
  return conn;
}

void reconnect_if_lost(PGconn* conn) {
  if (PQstatus(conn) != CONNECTION_OK) PQreset(conn);
}

int64_t Rows::affected() const {
  const char* n = res_ ? PQcmdTuples(res_.get()) : "";
  int64_t v = 0;
  std::from_chars(n, n + std::char_traits<char>::length(n), v);
  return v;
}

std::string Rows::text(int row, int col) const {
  if (null(row, col)) return "";
  return std::string(PQgetvalue(res_.get(), row, col),
                     static_cast<size_t>(PQgetlength(res_.get(), row, col)));
}

int64_t Rows::int64(int row, int col) const {
  const char* s = PQgetvalue(res_.get(), row, col);
  int64_t v = 0;
  std::from_chars(s, s + PQgetlength(res_.get(), row, col), v);
  return v;
}

double Rows::real(int row, int col) const {
  // PostgreSQL writes a float8 in its shortest exact form ("4.78", "1e-05"), which reads back as
  // the same double.
  const std::string_view s(PQgetvalue(res_.get(), row, col),
                           static_cast<size_t>(PQgetlength(res_.get(), row, col)));
  return parse_decimal(s).value_or(0);
}

Query::Query(const std::string& sql, std::string op) : sql_(numbered(sql)), op_(std::move(op)) {}

Query& Query::bind(const std::string& value) {
  params_.push_back(value);
  return *this;
}

Query& Query::bind(int64_t value) {
  params_.push_back(std::to_string(value));
  return *this;
}

Query& Query::bind(double value) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);  // shortest exact form
  params_.emplace_back(buf, ec == std::errc() ? end : buf);
  return *this;
}

Result<Rows> Query::run(PGconn* conn) {
  std::vector<const char*> values;
  values.reserve(params_.size());
  for (const std::string& p : params_) values.push_back(p.c_str());
  Rows rows;
  rows.res_.reset(PQexecParams(conn, sql_.c_str(), static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0));
  const ExecStatusType st = rows.res_ ? PQresultStatus(rows.res_.get()) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return rows;
  const char* state = rows.res_ ? PQresultErrorField(rows.res_.get(), PG_DIAG_SQLSTATE) : nullptr;
  sqlstate_ = state ? state : "";
  return conn_error(conn, op_);
}

Status exec(PGconn* conn, const std::string& sql, const std::string& op) {
  std::unique_ptr<PGresult, void (*)(PGresult*)> res(PQexec(conn, sql.c_str()), PQclear);
  const ExecStatusType st = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return Status::Ok();
  return conn_error(conn, op);
}

namespace {

// pg_advisory_xact_lock key for reservations ("burstled" as bytes).
constexpr const char* kLedgerLock = "SELECT pg_advisory_xact_lock(7166740835714360676)";

// A Query and, once stepped, its rows and the one being read.
class Stmt final : public sql::Stmt {
 public:
  Stmt(PGconn* conn, const std::string& sql, std::string op)
      : conn_(conn), query_(sql, std::move(op)) {}

  Stmt& bind(const std::string& value) override {
    query_.bind(value);
    return *this;
  }
  Stmt& bind(int64_t value) override {
    query_.bind(value);
    return *this;
  }
  Stmt& bind(double value) override {
    query_.bind(value);
    return *this;
  }
  Result<bool> step() override {
    if (!rows_) {
      Result<Rows> rows = query_.run(conn_);
      if (!rows) return rows.error();
      rows_ = std::move(rows).value();
      return rows_->size() > 0;
    }
    if (row_ < rows_->size()) ++row_;
    return row_ < rows_->size();
  }
  int64_t changes() const override { return rows_ ? rows_->affected() : 0; }
  bool duplicate_key() const override { return query_.sqlstate() == kUniqueViolation; }
  std::string text(int col) const override { return rows_->text(row_, col); }
  int64_t int64(int col) const override { return rows_->int64(row_, col); }
  double real(int col) const override { return rows_->real(row_, col); }

 private:
  PGconn* conn_;
  Query query_;
  std::optional<Rows> rows_;
  int row_ = 0;
};

}  // namespace

const sql::Dialect& Db::dialect() const {
  static const sql::Dialect kPostgres{"seq", " FOR UPDATE", " FOR UPDATE SKIP LOCKED", "?::text",
                                      false};
  return kPostgres;
}

Result<std::unique_ptr<sql::Stmt>> Db::prepare(const std::string& sql, std::string op) {
  return std::unique_ptr<sql::Stmt>(std::make_unique<Stmt>(conn_.get(), sql, std::move(op)));
}

Status Db::begin(sql::Lock lock, const std::string& what) {
  if (Status begun = exec("BEGIN", "begin " + what); !begun) return begun;
  if (lock != sql::Lock::kLedger) return Status::Ok();
  Status locked = exec(kLedgerLock, "lock the ledger");
  if (!locked) (void)exec("ROLLBACK", "roll back " + what);
  return locked;
}

}  // namespace burst::pg
