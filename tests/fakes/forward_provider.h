// A Provider that forwards every call to one the test owns, so code that takes ownership of its
// providers (the reaper, the reconciler) still acts on the test's FakeProvider.
#pragma once

#include "burst/provider.h"

namespace burst {

class ForwardProvider : public Provider {
 public:
  explicit ForwardProvider(Provider& p) : p_(p) {}
  std::string name() const override { return p_.name(); }
  Result<std::vector<Offer>> offers(bool gpu) override { return p_.offers(gpu); }
  Result<Volume> ensure_volume(const std::string& n, int s, const std::string& r) override {
    return p_.ensure_volume(n, s, r);
  }
  Result<std::vector<Volume>> list_volumes() override { return p_.list_volumes(); }
  Result<Pod> create_pod(const PodRequest& r) override { return p_.create_pod(r); }
  Result<Pod> get_pod(const std::string& id) override { return p_.get_pod(id); }
  Result<std::vector<Pod>> list_pods() override { return p_.list_pods(); }
  Status delete_pod(const std::string& id) override { return p_.delete_pod(id); }

 private:
  Provider& p_;
};

}  // namespace burst
