// The providers the contract suite runs against. Each target builds a provider (and whatever it
// talks to: an emulator on 127.0.0.1:0) inside a temp dir. A new driver adds one entry to
// contract_targets() in contract_targets.cpp; emulated(...) does the rest.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/provider.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {

inline constexpr const char* kContractApiKey = "contract-key-7d3e9a1f";

// A provider ready for a test, owning everything it needs.
class ContractEnv {
 public:
  virtual ~ContractEnv() = default;
  virtual Provider& provider() = 0;
  // The emulator behind it, or null for providers that are real (local).
  virtual fakecloud::FakeCloud* cloud() { return nullptr; }
};

struct ContractTarget {
  std::string name;  // the registry name; also the test's parameter name
  std::function<std::unique_ptr<ContractEnv>(const std::string& dir)> make;

  // So ctest lists "/runpod" rather than the parameter's bytes.
  friend void PrintTo(const ContractTarget& t, std::ostream* os) { *os << t.name; }
};

// A registry driver (make_provider(name)) pointed at a fresh in-process emulator serving that
// provider under `dir`, with kContractApiKey required. `boot_delay`: until SSH is published.
std::unique_ptr<ContractEnv> emulated(const std::string& provider, const std::string& dir,
                                      Duration boot_delay = Duration(300));

// Every target: local, runpod, ...
std::vector<ContractTarget> contract_targets();

}  // namespace burst::testing
