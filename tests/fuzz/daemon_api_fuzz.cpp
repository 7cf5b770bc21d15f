// Fuzzes burstd's local API (src/daemon/api.cpp) in-process, as the socket server calls it:
// the input is a request line "METHOD /path?k=v&k=v", a newline, then the body (POST /v1/jobs
// takes JSON with an inline YAML spec). Each input gets a fresh in-memory store holding one known
// job ("j1": phases, a pod, a log, a report) and a scheduler that never starts anything.
// Contract: every request gets a status and a body (JSON unless it is a log); handlers never
// throw (an exception escaping is a crash here, and a dropped connection for a client).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "burst/store.h"
#include "daemon/api.h"
#include "daemon/scheduler.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fuzz_check.h"

using namespace burst;
using namespace burst::daemon;

namespace {

// One directory for the whole run: logs/j1.log and the report the known job points at.
struct WorkDir {
  std::string path =
      (std::filesystem::temp_directory_path() / ("burst-api-fuzz-" + std::to_string(getpid())))
          .string();
  WorkDir() {
    std::filesystem::create_directories(path + "/logs");
    std::ofstream(path + "/logs/j1.log") << "step 1\nstep 2\n";
    std::ofstream(path + "/j1.json") << "{\"job\":\"j1\"}\n";
  }
  ~WorkDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

const std::string& work_dir() {
  static const WorkDir dir;
  return dir.path;
}

ApiRequest parse_request(const std::string& input) {
  ApiRequest r;
  r.headers["content-type"] = "application/json";  // what burst's clients send (else 415)
  const size_t eol = input.find('\n');
  const std::string line = input.substr(0, eol);
  if (eol != std::string::npos) r.body = input.substr(eol + 1);
  const size_t space = line.find(' ');
  r.method = line.substr(0, space);
  std::string target = space == std::string::npos ? "" : line.substr(space + 1);
  const size_t q = target.find('?');
  r.path = target.substr(0, q);
  if (q != std::string::npos) {
    std::string query = target.substr(q + 1);
    for (size_t at = 0; at <= query.size();) {
      size_t amp = query.find('&', at);
      if (amp == std::string::npos) amp = query.size();
      std::string kv = query.substr(at, amp - at);
      const size_t eq = kv.find('=');
      r.query[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
      at = amp + 1;
    }
  }
  return r;
}

// A submit naming a spec file would read whatever path the input names (/dev/zero included);
// the fuzzer sticks to inline specs. The API itself trusts its caller with paths: the socket is
// the user's own (mode 0600).
bool reads_a_file(const ApiRequest& r) {
  if (r.method != "POST") return false;
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  const bool inline_spec = j.contains("spec") && j["spec"].is_string();
  return !inline_spec && j.contains("path") && j["path"].is_string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return -1;
  ApiRequest request = parse_request(std::string(reinterpret_cast<const char*>(data), size));
  if (reads_a_file(request)) return -1;

  const std::string& dir = work_dir();
  std::unique_ptr<Store> store = open_sqlite_store(":memory:").value();
  JobRecord job;
  job.id = "j1";
  job.pipeline = "tts";
  job.state = JobState::kFailed;
  job.phase = Phase::kReport;
  job.report_path = dir + "/j1.json";
  job.created_ms = 1000;
  job.finished_ms = 2000;
  (void)store->create_job(job);
  (void)store->begin_phase("j1", Phase::kRun, 1000);
  (void)store->end_phase("j1", Phase::kRun, 2000, Outcome::kFailed, "exit 1");
  PodRecord pod;
  pod.job_id = "j1";
  pod.provider = "local";
  pod.role = "gpu";
  pod.name = "burst-j1-gpu";
  pod.pod_id = "local-1";
  pod.state = PodRecordState::kAlive;
  (void)store->add_pod(pod);

  FakeClock clock;
  FakeJobLauncher launcher(*store);
  Config config;
  config.logs_dir = dir + "/logs";
  Scheduler scheduler(clock, *store, launcher, SchedulerOptions{});
  Api api(scheduler, *store, config, [] { return std::vector<PodAction>{}; });

  ApiResponse response = api.handle(request);
  FUZZ_CHECK(response.status >= 200 && response.status < 600);
  if (response.content_type == "application/json")
    FUZZ_CHECK(!nlohmann::json::parse(response.body, nullptr, false).is_discarded());
  // The socket server's log follower reads by the path's last segment and ?offset=.
  if (request.query.count("follow")) {
    std::string id = request.path.substr(request.path.rfind('/') + 1);
    (void)api.read_log(id, std::atoll(request.query["offset"].c_str()));
  }
  return 0;
}
