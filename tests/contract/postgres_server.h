// A real PostgreSQL server for the store contract tests: Debian's (or Homebrew's) initdb and
// pg_ctl, one server per test process, started on first use in a temp dir and stopped at exit.
// It listens only on a Unix socket in that dir (listen_addresses=''), so it needs no port, and
// runs with fsync off. As root it runs as the `postgres` user (the server refuses root).
// Each test gets a schema of its own (fresh_conninfo), so tests never see each other's rows.
#pragma once

#include <string>

namespace burst::testing {

class PostgresServer {
 public:
  // The process's server, started on the first call. When it is not available, skip_reason()
  // says why the tests skip (no server binaries here) or error() why they fail (they are here
  // but the server did not start).
  static PostgresServer& get();

  bool available() const { return skip_reason_.empty() && error_.empty(); }
  const std::string& skip_reason() const { return skip_reason_; }
  const std::string& error() const { return error_; }
  const std::string& socket_dir() const { return dir_; }

  // A libpq connection string to a new, empty schema (search_path set to it).
  std::string fresh_conninfo();
  // The same server as a postgresql:// URL, to the default schema.
  std::string url() const;
  // Runs one SQL command as the superuser in `conninfo`'s database; "" or libpq's error.
  std::string run_sql(const std::string& conninfo, const std::string& sql) const;
  // The connection string for the database itself (schema "public").
  std::string base_conninfo() const;

  ~PostgresServer();

 private:
  PostgresServer();
  void start();

  std::string dir_;          // temp dir: data/, the socket, logs
  std::string bin_;          // the dir holding initdb and pg_ctl
  std::string as_postgres_;  // "runuser -u postgres -- " when root, else ""
  std::string skip_reason_;
  std::string error_;
  bool started_ = false;
  int schemas_ = 0;
};

}  // namespace burst::testing
