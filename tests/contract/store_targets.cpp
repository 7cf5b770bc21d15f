#include "contract/store_targets.h"

#include "contract/postgres_server.h"
#include "fakes/temp_dir.h"

namespace burst::testing {
namespace {

class SqliteTarget final : public StoreTarget {
 public:
  Result<std::unique_ptr<Store>> open() override {
    return open_sqlite_store(dir_.path() + "/state/burst.db");
  }
  Result<std::unique_ptr<Store>> open_other() override { return open_sqlite_store(":memory:"); }

 private:
  TempDir dir_;
};

class PostgresTarget final : public StoreTarget {
 public:
  PostgresTarget() : server_(PostgresServer::get()) {
    if (server_.available()) conninfo_ = server_.fresh_conninfo();
  }
  std::string skip_reason() const override { return server_.skip_reason(); }
  std::string setup_error() const override { return server_.error(); }
  Result<std::unique_ptr<Store>> open() override { return open_postgres_store(conninfo_); }
  Result<std::unique_ptr<Store>> open_other() override {
    return open_postgres_store(server_.fresh_conninfo());
  }

 private:
  PostgresServer& server_;
  std::string conninfo_;
};

}  // namespace

std::unique_ptr<StoreTarget> make_store_target(StoreKind kind) {
  if (kind == StoreKind::kPostgres) return std::make_unique<PostgresTarget>();
  return std::make_unique<SqliteTarget>();
}

}  // namespace burst::testing
