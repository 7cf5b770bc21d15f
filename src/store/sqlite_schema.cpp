#include "store/sqlite_schema.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include "store/schema_steps.h"

namespace burst::sqlite {
namespace {

constexpr int kBusyTimeoutMs = 5000;

const std::vector<std::string>& migrations() {
  return store_sql::schema_steps(store_sql::Engine::kSqlite);
}

Error os_error(const std::string& op, const std::string& path) {
  return make_error(ErrorCode::kInternal,
                    "store: " + op + " " + path + ": " + std::string(std::strerror(errno)));
}

// Creates each missing directory of `dir` with mode 0700 (chmod'ed, whatever the umask).
Status make_dirs(const std::filesystem::path& dir) {
  std::filesystem::path prefix;
  for (const auto& part : dir) {
    prefix /= part;
    if (::mkdir(prefix.c_str(), 0700) == 0) {
      if (::chmod(prefix.c_str(), 0700) != 0) return os_error("chmod", prefix.string());
    } else if (errno != EEXIST) {
      return os_error("create directory", prefix.string());
    }
  }
  return Status::Ok();
}

// Creates the database file owner-only before SQLite opens it (SQLite gives its -wal and -shm
// files the same mode). An existing file is left as it is.
Status prepare_file(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    Status made = make_dirs(parent);
    if (!made) return made;
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno == EEXIST ? Status::Ok() : os_error("create", path);
  int rc = ::fchmod(fd, 0600);
  ::close(fd);
  return rc == 0 ? Status::Ok() : os_error("chmod", path);
}

Result<int> read_version(sqlite3* db) {
  Result<Stmt> stmt = Stmt::prepare(db, "PRAGMA user_version", "read schema version");
  if (!stmt) return stmt.error();
  Result<bool> row = stmt->step();
  if (!row) return row.error();
  return *row ? static_cast<int>(stmt->int64(0)) : 0;
}

Status check_not_newer(const std::string& path, int version) {
  if (version <= current_schema_version()) return Status::Ok();
  return make_error(ErrorCode::kInvalid,
                    "state database " + path + " has schema version " + std::to_string(version) +
                        "; this burst understands up to " +
                        std::to_string(current_schema_version()) + ": upgrade burst");
}

// Applies the steps past the file's version in one write transaction; BEGIN IMMEDIATE takes the
// write lock up front, so two processes opening a fresh file migrate it once, one after the other.
Status apply_migrations(sqlite3* db, int version) {
  for (int v = version; v < current_schema_version(); ++v) {
    Status step = exec(db, migrations()[static_cast<size_t>(v)].c_str(),
                       "migrate schema to version " + std::to_string(v + 1));
    if (!step) return step;
  }
  if (version == current_schema_version()) return Status::Ok();
  // PRAGMA takes no bound parameters; the value is this code's constant, never input.
  std::string set = "PRAGMA user_version = " + std::to_string(current_schema_version());
  return exec(db, set.c_str(), "set schema version");
}

Status migrate(sqlite3* db, const std::string& path) {
  Status begun = exec(db, "BEGIN IMMEDIATE", "begin migration");
  if (!begun) return begun;
  Result<int> version = read_version(db);
  Status done = version ? check_not_newer(path, *version) : Status(version.error());
  if (done) done = apply_migrations(db, *version);
  if (done) done = exec(db, "COMMIT", "commit migration");
  if (!done) static_cast<void>(exec(db, "ROLLBACK", "roll back migration"));  // best effort
  return done;
}

// Switching a file to WAL takes its exclusive lock without calling the busy handler, so a second
// process opening a fresh file at the same moment gets SQLITE_BUSY at once: retry for as long as
// the busy timeout would have waited. Once a file is in WAL mode it stays so and this is a no-op.
Status enable_wal(sqlite3* db) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  while (true) {
    Result<Stmt> wal = Stmt::prepare(db, "PRAGMA journal_mode = WAL", "set WAL journal mode");
    if (!wal) return wal.error();
    Status ran = wal->run();
    if (ran || sqlite3_errcode(db) != SQLITE_BUSY) return ran;
    if (std::chrono::steady_clock::now() >= deadline) return ran;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Status configure(sqlite3* db, const std::string& path, bool in_memory) {
  if (sqlite3_busy_timeout(db, kBusyTimeoutMs) != SQLITE_OK)
    return db_error(db, "set busy timeout");
  Status status = exec(db, "PRAGMA foreign_keys = ON", "enable foreign keys");
  if (!status) return status;
  // Refuse a newer file before touching it, not even to switch its journal mode.
  Result<int> version = read_version(db);
  if (!version) return version.error();
  status = check_not_newer(path, *version);
  if (!status || in_memory) return status;
  return enable_wal(db);
}

}  // namespace

int current_schema_version() { return static_cast<int>(migrations().size()); }

Result<DbPtr> open_database(const std::string& path) {
  bool in_memory = path == ":memory:";
  if (!in_memory) {
    Status file = prepare_file(path);
    if (!file) return file.error();
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) return db_error(db.get(), "open " + path);
  Status status = configure(db.get(), path, in_memory);
  if (status) status = migrate(db.get(), path);
  if (!status) return status.error();
  return db;
}

}  // namespace burst::sqlite
