#include "store/sql_db.h"

#include <sstream>

namespace burst::sql {
namespace {

std::vector<std::string> split_columns(const std::string& columns) {
  std::vector<std::string> out;
  std::stringstream in(columns);
  std::string name;
  while (std::getline(in, name, ',')) {
    const size_t first = name.find_first_not_of(' ');
    const size_t last = name.find_last_not_of(' ');
    if (first != std::string::npos) out.push_back(name.substr(first, last - first + 1));
  }
  return out;
}

std::string insert_values(const std::string& table, const std::string& columns) {
  return "INSERT INTO " + table + " (" + columns + ") VALUES (" + placeholders(columns) + ")";
}

}  // namespace

std::string placeholders(const std::string& columns) {
  std::string out;
  for (size_t i = 0; i < split_columns(columns).size(); ++i) out += i == 0 ? "?" : ", ?";
  return out;
}

std::string assignments(const std::string& columns) {
  std::string out;
  for (const std::string& name : split_columns(columns))
    out += (out.empty() ? "" : ", ") + name + " = ?";
  return out;
}

std::string replace_into(const Dialect& d, const std::string& table, const std::string& columns,
                         const std::string& keys) {
  if (d.insert_or_replace) return "INSERT OR REPLACE" + insert_values(table, columns).substr(6);
  const std::vector<std::string> all = split_columns(columns);
  const size_t key_count = split_columns(keys).size();
  std::string set;
  for (size_t i = key_count; i < all.size(); ++i)
    set += (i == key_count ? "" : ", ") + all[i] + " = excluded." + all[i];
  return insert_values(table, columns) + " ON CONFLICT (" + keys + ") DO UPDATE SET " + set;
}

std::string insert_or_ignore(const Dialect& d, const std::string& table, const std::string& columns,
                             const std::string& keys) {
  if (d.insert_or_replace) return "INSERT OR IGNORE" + insert_values(table, columns).substr(6);
  return insert_values(table, columns) + " ON CONFLICT (" + keys + ") DO NOTHING";
}

Status Stmt::run() {
  while (true) {
    Result<bool> row = step();
    if (!row) return row.error();
    if (!*row) return Status::Ok();
  }
}

Status Stmt::run_changing(const std::string& missing) {
  if (Status ran = run(); !ran) return ran;
  if (changes() == 0) return make_error(ErrorCode::kNotFound, missing);
  return Status::Ok();
}

Transaction::~Transaction() {
  if (open_) (void)db_.exec("ROLLBACK", "roll back " + what_);  // best effort
}

Status Transaction::begin(Lock lock) {
  Status begun = db_.begin(lock, what_);
  open_ = begun.ok();
  return begun;
}

Status Transaction::commit() {
  Status done = db_.exec("COMMIT", "commit " + what_);
  if (done) open_ = false;
  return done;
}

}  // namespace burst::sql
