#include "contract/contract_targets.h"

#include <gtest/gtest.h>

#include "burst/config.h"
#include "local/local_provider.h"
#include "registry.h"

namespace burst::testing {
namespace {

class LocalEnv : public ContractEnv {
 public:
  explicit LocalEnv(const std::string& dir)
      : provider_(make_local_provider({dir + "/local", "", 0, 0}, clock_)) {}
  Provider& provider() override { return *provider_; }

 private:
  SystemClock clock_;
  std::unique_ptr<Provider> provider_;
};

class EmulatedEnv : public ContractEnv {
 public:
  EmulatedEnv(const std::string& provider, const std::string& dir, Duration boot_delay)
      : cloud_(
            fakecloud::EmulatorOptions{
                dir + "/fakecloud", boot_delay, {{provider, kContractApiKey}}},
            clock_, {provider}) {
    Status st = cloud_.start();
    EXPECT_TRUE(st.ok()) << st.error().message;
    Config c;
    c.clouds[provider].base_url = cloud_.provider_url(provider);
    c.clouds[provider].api_key = kContractApiKey;
    c.clouds[provider].timeout_seconds = 10;
    auto p = make_provider(provider, c, clock_);
    EXPECT_TRUE(p.ok()) << p.error().message;
    if (p.ok()) provider_ = std::move(*p);
  }
  Provider& provider() override { return *provider_; }
  fakecloud::FakeCloud* cloud() override { return &cloud_; }

 private:
  SystemClock clock_;
  fakecloud::FakeCloud cloud_;
  std::unique_ptr<Provider> provider_;
};

}  // namespace

std::unique_ptr<ContractEnv> emulated(const std::string& provider, const std::string& dir,
                                      Duration boot_delay) {
  return std::make_unique<EmulatedEnv>(provider, dir, boot_delay);
}

std::vector<ContractTarget> contract_targets() {
  return {
      {"local", [](const std::string& dir) { return std::make_unique<LocalEnv>(dir); }},
      {"runpod", [](const std::string& dir) { return emulated("runpod", dir); }},
      {"vast", [](const std::string& dir) { return emulated("vast", dir); }},
      {"lambda", [](const std::string& dir) { return emulated("lambda", dir); }},
  };
}

}  // namespace burst::testing
