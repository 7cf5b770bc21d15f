// What a provider module of the emulator provides, and the helpers every module uses. A module
// (runpod_api.cpp, ...) installs its routes under "/<provider>" on the shared server; the server
// applies the provider's latency, auth and 429/5xx knobs before any route runs and writes the
// request log after it, so a module only implements the API itself.
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cloud_state.h"

namespace burst::fakecloud {

struct ApiModule {
  const char* provider;  // also the URL prefix: base URL "http://127.0.0.1:<port>/<provider>"
  // Registers the routes, each pattern starting with `prefix` ("/runpod").
  void (*install)(httplib::Server& server, CloudState& state, const std::string& prefix);
  // The provider's error body for a status the server answers itself (401, 429, 5xx).
  std::string (*error_body)(int status, const std::string& detail);
  const char* error_content_type;
  // The status the provider answers a missing or refused key with on this request, when it is
  // not 401 (Vast's offer search: 404); null or 0: 401.
  int (*refused_key_status)(const std::string& method, const std::string& path);
};

// Every module this build serves. Adding a provider = one entry (fake_cloud.cpp).
const std::vector<ApiModule>& api_modules();

inline void send_json(httplib::Response& res, int status, const nlohmann::json& body,
                      const char* content_type = "application/json") {
  res.status = status;
  res.set_content(body.dump(), content_type);
}

// Applies the `list_fault` knob to a pod list response: true when it answered. `documented_empty`
// is the provider's own list with no pods in it ("hidden").
inline bool answer_list_fault(const Faults& f, const std::string& documented_empty,
                              httplib::Response& res) {
  if (f.list_fault.empty()) return false;
  res.status = 200;
  if (f.list_fault == "empty-body")
    res.set_content("", "application/json");
  else if (f.list_fault == "hidden")
    res.set_content(documented_empty, "application/json");
  else  // "changed-shape": what an API revision that renamed everything might send
    res.set_content(R"({"results":[{"podId":"x7","podName":"burst-j1-gpu","status":"RUNNING"}]})",
                    "application/json");
  return true;
}

// Sleeps `ms` on the serving thread (latency and hang knobs): real time, whatever the clock.
void sleep_ms(int ms);

// UTC RFC 3339 with second precision: "2026-11-22T07:09:41Z".
std::string rfc3339(TimePoint t);

}  // namespace burst::fakecloud
