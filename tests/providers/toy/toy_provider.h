// "toy": a provider that exists only in the test binary, to show that a provider is a folder and
// a registry row. Its folder (tests/providers/toy/) holds the driver, an in-memory account (a
// FakeProvider every instance shares, so a test can look at what the runner did) and a connector
// that refuses sessions; ToyProviderRow adds its row through the registry's test hook.
// Its traits differ from every real provider's (per-hour billing, no CPU pods, a 30 s boot), so a
// test can see them arrive in the plan. docs/architecture.md, "Adding a provider".
#pragma once

#include "fakes/fake_provider.h"

namespace burst {

inline constexpr const char* kToyProvider = "toy";
inline constexpr const char* kToyConnectRefusal = "toy pods take no sessions";

// While one exists, the registry has the "toy" row (added through its test hook, removed again
// at the end so other tests see the real table).
class ToyProviderRow {
 public:
  ToyProviderRow();
  ~ToyProviderRow();
  ToyProviderRow(const ToyProviderRow&) = delete;
  ToyProviderRow& operator=(const ToyProviderRow&) = delete;
};

// The account every toy driver talks to: its pods, offers and the calls made on it.
FakeProvider& toy_account();

// How many times a toy connector was asked for a session.
int toy_connects();

}  // namespace burst
