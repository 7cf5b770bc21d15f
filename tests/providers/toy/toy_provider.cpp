#include "providers/toy/toy_provider.h"

#include <atomic>
#include <memory>

#include "burst/remote.h"
#include "registry.h"

namespace burst {
namespace {

std::atomic<int> g_connects{0};

// The driver: each instance forwards to the one shared account.
class ToyProvider : public Provider {
 public:
  std::string name() const override { return kToyProvider; }
  Result<std::vector<Offer>> offers(bool gpu) override { return toy_account().offers(gpu); }
  Result<Volume> ensure_volume(const std::string& name, int size_gb,
                               const std::string& region) override {
    return toy_account().ensure_volume(name, size_gb, region);
  }
  Result<std::vector<Volume>> list_volumes() override { return toy_account().list_volumes(); }
  Result<Pod> create_pod(const PodRequest& request) override {
    return toy_account().create_pod(request);
  }
  Result<Pod> get_pod(const std::string& id) override { return toy_account().get_pod(id); }
  Result<std::vector<Pod>> list_pods() override { return toy_account().list_pods(); }
  Status delete_pod(const std::string& id) override { return toy_account().delete_pod(id); }
};

// Its pods are reached another way than SSH: here, not at all. kInvalid, so the runner does not
// wait for a session that will never come.
class ToyConnector : public RemoteConnector {
 public:
  Result<std::unique_ptr<RemoteSession>> connect(SshTarget&) override {
    ++g_connects;
    return make_error(ErrorCode::kInvalid, kToyConnectRefusal);
  }
};

std::unique_ptr<Provider> make_toy(const Config&, Clock&) {
  return std::make_unique<ToyProvider>();
}

std::unique_ptr<RemoteConnector> make_toy_connector() { return std::make_unique<ToyConnector>(); }

}  // namespace

FakeProvider& toy_account() {
  static FakeProvider* account = [] {
    auto* a = new FakeProvider(kToyProvider);
    Offer o;
    o.provider = kToyProvider;
    o.gpu_type = "RTX_4090";
    o.gpu_count = 1;
    o.vram_gb = 24;
    o.usd_per_hour = 0.5;
    o.region = "toy-1";
    o.price_source = "live offer";
    a->gpu_offers = {o};
    return a;
  }();
  return *account;
}

int toy_connects() { return g_connects.load(); }

// The row: what registry.cpp would hold for a real provider.
ToyProviderRow::ToyProviderRow() {
  ProviderTraits t;
  t.billing = {3600, 0, "hour", "the toy provider bills started hours"};
  t.cpu_pods = false;
  t.boot_s = 30;
  t.connector = &make_toy_connector;
  (void)register_provider_for_tests(
      {kToyProvider, "test-only: an in-memory account", &make_toy, t});
}

ToyProviderRow::~ToyProviderRow() { unregister_provider_for_tests(kToyProvider); }

}  // namespace burst
