// The emulator as an object: one HTTP server on 127.0.0.1 serving every provider module under
// its own prefix (/runpod, /lambda, /vast), the admin paths under /_fake, and a CloudState that
// tests read and steer in-process. Used by tests (port 0) and by the burst-fakecloud program.
//
// Admin paths (for the program; tests call state() directly):
//   GET  /_fake/state                    pods, volumes, request log, faults (JSON)
//   POST /_fake/faults?provider=runpod   body: Faults as JSON (fields left out take defaults)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "cloud_state.h"

namespace burst::fakecloud {

class FakeCloud {
 public:
  // `providers`: which modules to serve; empty = all.
  FakeCloud(EmulatorOptions options, Clock& clock, std::vector<std::string> providers = {});
  ~FakeCloud();  // stops the server and every pod
  FakeCloud(const FakeCloud&) = delete;
  FakeCloud& operator=(const FakeCloud&) = delete;

  // Binds host:port (0 = any free port) and serves on a background thread.
  Status start(const std::string& host = "127.0.0.1", int port = 0);
  void stop();
  bool running() const;

  int port() const;
  std::string base_url() const;                                 // "http://127.0.0.1:<port>"
  std::string provider_url(const std::string& provider) const;  // base_url() + "/" + provider
  CloudState& state();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace burst::fakecloud
