// The stores the store contract suite (store_contract_test.cpp) runs against: SQLite on a file in
// a temp dir, and PostgreSQL on a real server (postgres_server.h), each test in a schema of its
// own. A target hands out connections to one test's store; open() twice gives two connections
// (two processes' worth) to the same data.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "burst/store.h"

namespace burst::testing {

class StoreTarget {
 public:
  virtual ~StoreTarget() = default;
  // Why this target cannot run here ("" when it can): the test skips, saying so.
  virtual std::string skip_reason() const { return ""; }
  // Why it should run here and cannot ("" when it can): the test fails, saying so.
  virtual std::string setup_error() const { return ""; }
  // A new connection to this test's store.
  virtual Result<std::unique_ptr<Store>> open() = 0;
  // A store of another installation (separate data).
  virtual Result<std::unique_ptr<Store>> open_other() = 0;
};

enum class StoreKind { kSqlite, kPostgres };
// For test names and ctest: "sqlite" / "postgres".
inline void PrintTo(StoreKind kind, std::ostream* os) {
  *os << (kind == StoreKind::kPostgres ? "postgres" : "sqlite");
}

std::unique_ptr<StoreTarget> make_store_target(StoreKind kind);

}  // namespace burst::testing
