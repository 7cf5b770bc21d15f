#include "contract/postgres_server.h"

#include <glob.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "store/libpq_calls.h"

namespace burst::testing {
namespace {

namespace fs = std::filesystem;

// initdb from $BURST_PG_BIN, else Debian's newest /usr/lib/postgresql/<v>/bin, else PATH
// (Homebrew links initdb into it).
std::string find_bin_dir() {
  if (const char* env = std::getenv("BURST_PG_BIN"); env && *env)
    return ::access((std::string(env) + "/initdb").c_str(), X_OK) == 0 ? env : "";
  glob_t g{};
  std::vector<std::string> found;
  if (::glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) found.push_back(g.gl_pathv[i]);
  ::globfree(&g);
  if (!found.empty()) {
    std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
      return std::atoi(a.c_str() + 20) < std::atoi(b.c_str() + 20);  // after /usr/lib/postgresql/
    });
    return fs::path(found.back()).parent_path().string();
  }
  if (const char* path = std::getenv("PATH"))
    for (std::string rest = path; !rest.empty();) {
      const size_t colon = rest.find(':');
      const std::string dir = rest.substr(0, colon);
      if (!dir.empty() && ::access((dir + "/initdb").c_str(), X_OK) == 0 &&
          ::access((dir + "/pg_ctl").c_str(), X_OK) == 0)
        return dir;
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    }
  return "";
}

int run(const std::string& command) {
  const int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string tail_of(const std::string& file) { return "(see " + file + ")"; }

}  // namespace

PostgresServer& PostgresServer::get() {
  static PostgresServer server;
  return server;
}

PostgresServer::PostgresServer() { start(); }

void PostgresServer::start() {
  const auto t0 = std::chrono::steady_clock::now();
  bin_ = find_bin_dir();
  if (bin_.empty()) {
    skip_reason_ =
        "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin, "
        "$BURST_PG_BIN or PATH: install Debian's postgresql package (scripts/setup)";
    std::cerr << "[ SKIPPED ] PostgreSQL store tests: " << skip_reason_ << std::endl;
    return;
  }
  // As root the server runs as `postgres`, which may not reach $TMPDIR (say /root/tmp): /tmp.
  const fs::path base = ::geteuid() == 0 ? fs::path("/tmp") : fs::temp_directory_path();
  std::string tmpl = (base / "burst-pg-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    error_ = "mkdtemp failed for the PostgreSQL data dir";
    return;
  }
  dir_ = tmpl;
  if (::geteuid() == 0) {  // the server refuses to run as root
    const passwd* pw = ::getpwnam("postgres");
    if (!pw) {
      skip_reason_ = "running as root and there is no `postgres` user to run the server as";
      std::cerr << "[ SKIPPED ] PostgreSQL store tests: " << skip_reason_ << std::endl;
      return;
    }
    if (::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      error_ = "cannot chown " + dir_ + " to postgres";
      return;
    }
    as_postgres_ = "runuser -u postgres -- ";
  }
  const std::string data = dir_ + "/data";
  const std::string init = as_postgres_ + bin_ + "/initdb -D " + data +
                           " -U burst -A trust -E UTF8 --no-sync >" + dir_ + "/initdb.log 2>&1";
  if (run(init) != 0) {
    error_ = "initdb failed: " + tail_of(dir_ + "/initdb.log");
    return;
  }
  const std::string ctl =
      as_postgres_ + bin_ + "/pg_ctl -D " + data + " -l " + dir_ + "/server.log -w -t 60 " +
      "-o \"-c listen_addresses='' -c unix_socket_directories=" + dir_ +
      " -c fsync=off -c synchronous_commit=off -c full_page_writes=off\" start >" + dir_ +
      "/pg_ctl.log 2>&1";
  if (run(ctl) != 0) {
    error_ = "pg_ctl start failed: " + tail_of(dir_ + "/server.log");
    return;
  }
  started_ = true;
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  std::cerr << "[ postgres] server started in " << ms << " ms on socket dir " << dir_ << std::endl;
}

PostgresServer::~PostgresServer() {
  if (started_)
    run(as_postgres_ + bin_ + "/pg_ctl -D " + dir_ + "/data -m immediate stop >/dev/null 2>&1");
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string PostgresServer::base_conninfo() const {
  return "host=" + dir_ + " dbname=postgres user=burst";
}

std::string PostgresServer::url() const {
  std::string host;
  for (char c : dir_) host += c == '/' ? std::string("%2F") : std::string(1, c);
  return "postgresql://burst@" + host + "/postgres";
}

std::string PostgresServer::run_sql(const std::string& conninfo, const std::string& sql) const {
  if (Status loaded = libpq_dl::load(); !loaded) return loaded.error().message;
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::string error;
  if (PQstatus(conn) != CONNECTION_OK) {
    error = PQerrorMessage(conn);
  } else {
    PGresult* res = PQexec(conn, sql.c_str());
    const ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) error = PQerrorMessage(conn);
    PQclear(res);
  }
  PQfinish(conn);
  return error;
}

std::string PostgresServer::fresh_conninfo() {
  const std::string schema = "t" + std::to_string(++schemas_);
  const std::string error = run_sql(base_conninfo(), "CREATE SCHEMA " + schema);
  if (!error.empty()) std::cerr << "postgres: create schema " << schema << ": " << error;
  return base_conninfo() + " options='-c search_path=" + schema + "'";
}

}  // namespace burst::testing
