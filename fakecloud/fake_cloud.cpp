#include "fake_cloud.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include "api_module.h"

namespace burst::fakecloud {

namespace {

// IMF-fixdate (RFC 9110 §5.6.7): "Sun, 06 Nov 1994 08:49:37 GMT".
std::string http_date(TimePoint t) {
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf;
}

}  // namespace

using nlohmann::json;

// The provider modules; each is defined in its own <provider>_api.cpp.
extern const ApiModule kRunpodModule;
extern const ApiModule kVastModule;
extern const ApiModule kLambdaModule;

const std::vector<ApiModule>& api_modules() {
  static const std::vector<ApiModule> modules = {kRunpodModule, kVastModule, kLambdaModule};
  return modules;
}

void sleep_ms(int ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

std::string rfc3339(TimePoint t) { return format_utc(t); }

namespace {

bool contains(const std::string& hay, const std::string& needle) {
  return !needle.empty() && hay.find(needle) != std::string::npos;
}

}  // namespace

struct FakeCloud::Impl {
  Impl(EmulatorOptions o, Clock& clock, std::vector<std::string> names)
      : state(std::move(o), clock) {
    for (const auto& m : api_modules())
      if (names.empty() || std::find(names.begin(), names.end(), m.provider) != names.end())
        modules.push_back(&m);
  }

  const ApiModule* module_for(const std::string& path) const {
    for (const ApiModule* m : modules) {
      const std::string prefix = std::string("/") + m->provider + "/";
      if (path.rfind(prefix, 0) == 0) return m;
    }
    return nullptr;
  }

  // Latency, auth and 429/5xx bursts, before any route of the provider runs.
  httplib::Server::HandlerResponse gate(const httplib::Request& req, httplib::Response& res) {
    const ApiModule* m = module_for(req.path);
    if (!m) return httplib::Server::HandlerResponse::Unhandled;
    state.request_started();
    const Faults f = state.faults(m->provider);
    sleep_ms(f.latency_ms);
    if (state.take_timeout(m->provider)) sleep_ms(f.hang_ms);  // then handled: too late
    auto answer = [&](int status, const std::string& detail) {
      res.status = status;
      res.set_content(m->error_body(status, detail), m->error_content_type);
      return httplib::Server::HandlerResponse::Handled;
    };
    // Every answer carries the emulator clock's Date, as real servers do (`burst check` reads
    // clock skew from it; a test skews the clock it gives the emulator).
    res.set_header("Date", http_date(state.clock().now()));
    const int refused = m->refused_key_status ? m->refused_key_status(req.method, req.path) : 0;
    std::string auth = req.get_header_value("Authorization");
    // RunPod's GraphQL docs authenticate with `?api_key=` (REFERENCE §2.2; runpod_graphql.cpp).
    const bool graphql =
        req.path.size() >= 8 && req.path.compare(req.path.size() - 8, 8, "/graphql") == 0;
    if (auth.empty() && graphql && req.has_param("api_key"))
      auth = "Bearer " + req.get_param_value("api_key");
    if (auth.empty()) return answer(refused ? refused : 401, "missing bearer token");
    if (f.auth_failure || !state.authorised(m->provider, auth))
      return answer(refused ? refused : 401, "invalid bearer token");
    int retry_after = -1;
    const int burst = state.take_burst(m->provider, &retry_after);
    if (burst == 429) {
      if (retry_after >= 0) res.set_header("Retry-After", std::to_string(retry_after));
      return answer(429, "rate limit exceeded for the minute window");
    }
    if (burst != 0) return answer(burst, "upstream temporarily unavailable");
    return httplib::Server::HandlerResponse::Unhandled;
  }

  void log(const httplib::Request& req, const httplib::Response& res) {
    const ApiModule* m = module_for(req.path);
    if (!m) return;
    RequestLogEntry e;
    e.provider = m->provider;
    e.method = req.method;
    e.path = req.target.empty() ? req.path : req.target;
    e.status = res.status;
    e.body = req.body;
    const std::string auth = req.get_header_value("Authorization");
    e.authorised = state.authorised(m->provider, auth);
    std::string key = state.api_key(m->provider);
    if (key.empty() && auth.rfind("Bearer ", 0) == 0) key = auth.substr(7);
    e.key_leaked = contains(e.path, key) || contains(e.body, key);
    if (!key.empty()) {  // the log shows where a key was, never the key
      static const std::string kMark = "[api key]";
      // Searching on after the mark: a key inside "[api key]" (the key "y") is not found again.
      for (std::string* s : {&e.path, &e.body})
        for (size_t at = s->find(key); at != std::string::npos;
             at = s->find(key, at + kMark.size()))
          s->replace(at, key.size(), kMark);
    }
    state.log_request(std::move(e));
  }

  void install() {
    server.new_task_queue = [] { return new httplib::ThreadPool(16); };
    server.set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) { return gate(req, res); });
    // Logged as the answer is about to be written (the post-routing handler), not after it is
    // sent (the logger): a client's next request, sent once it has this answer, is then never
    // logged before it. The logger's order once put a verifying GET's 404 before the DELETE it
    // followed (E2EPrepare under ASan, 2026-11-30).
    server.set_post_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) { log(req, res); });
    server.set_error_handler(httplib::Server::HandlerWithResponse(
        [this](const httplib::Request& req, httplib::Response& res) {
          const ApiModule* m = module_for(req.path);
          if (!m || !res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
          res.set_content(m->error_body(res.status, "no route for " + req.method + " " + req.path),
                          m->error_content_type);
          return httplib::Server::HandlerResponse::Handled;
        }));
    server.Get("/_fake/state", [this](const httplib::Request&, httplib::Response& res) {
      send_json(res, 200, state.state_json());
    });
    server.Post("/_fake/faults", [this](const httplib::Request& req, httplib::Response& res) {
      json body = json::parse(req.body, nullptr, false);
      const std::string provider = req.get_param_value("provider");
      if (body.is_discarded() || !body.is_object() || provider.empty()) {
        send_json(res, 400, {{"error", "want ?provider=<name> and a JSON object body"}});
        return;
      }
      state.set_faults(provider, Faults::from_json(body));
      send_json(res, 200, state.faults(provider).to_json());
    });
    for (const ApiModule* m : modules) m->install(server, state, std::string("/") + m->provider);
  }

  CloudState state;
  std::vector<const ApiModule*> modules;
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::string host;
};

FakeCloud::FakeCloud(EmulatorOptions options, Clock& clock, std::vector<std::string> providers)
    : impl_(std::make_unique<Impl>(std::move(options), clock, std::move(providers))) {
  impl_->install();
}

FakeCloud::~FakeCloud() { stop(); }

Status FakeCloud::start(const std::string& host, int port) {
  impl_->host = host;
  if (port == 0) {
    impl_->port = impl_->server.bind_to_any_port(host);
  } else {
    impl_->port = impl_->server.bind_to_port(host, port) ? port : -1;
  }
  if (impl_->port <= 0)
    return make_error(ErrorCode::kUnavailable,
                      "fakecloud: cannot bind " + host + ":" + std::to_string(port));
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  for (int i = 0; i < 500 && !impl_->server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!impl_->server.is_running())
    return make_error(ErrorCode::kUnavailable, "fakecloud: server did not start");
  return Status::Ok();
}

void FakeCloud::stop() {
  if (impl_->thread.joinable()) {
    impl_->server.stop();
    impl_->thread.join();
  }
}

bool FakeCloud::running() const { return impl_->server.is_running(); }
int FakeCloud::port() const { return impl_->port; }
std::string FakeCloud::base_url() const {
  return "http://" + impl_->host + ":" + std::to_string(impl_->port);
}
std::string FakeCloud::provider_url(const std::string& provider) const {
  return base_url() + "/" + provider;
}
CloudState& FakeCloud::state() { return impl_->state; }

}  // namespace burst::fakecloud
