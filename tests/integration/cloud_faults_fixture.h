// The fixture of the cloud drivers' fault suite (cloud_faults_test.cpp, one parameterised suite
// over a table of per-provider expectations; cloud_faults_only_test.cpp, what only one provider
// has): the in-process emulator serving one provider with its expected key, the driver under
// test on a fake clock (backoff and polling take no real time; the emulator and its sshd pods
// are real), SQLite in memory holding job "j1", and at the end the check that the key never left
// the Authorization header. A provider is one CloudCase row: how its driver is made, what it is
// asked for, and what the user must see when each fault strikes.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "burst/http.h"
#include "burst/store.h"
#include "fakecloud/fake_cloud.h"
#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "job/pod_lifecycle.h"

namespace burst {

// How a test puts a fault on "the next create" of a provider, whose driver sends other requests
// first on a fresh account.
enum class ArmCreate {
  kNow,          // set the faults now; `requests_before_create` of them hit earlier requests
  kOnCreate,     // set them just as the create request goes out
  kAfterWarmUp,  // make and delete one pod first, so the create is the first request
};

// Which call shows an expectation.
enum class Call { kCreate, kOffers, kListPods, kListVolumes };

// How offers show a GPU type without capacity.
enum class NoCapacityOffers { kListedUnavailable, kListedOnceUnavailable, kNotListed };

struct CloudCase {
  std::string name;        // "runpod": the emulator's module and the driver's name
  std::string key;         // the API key the emulator expects
  std::string wrong_key;   // a key of the same form that the emulator refuses
  std::string api_prefix;  // the path after "/<name>" that requests() counts under
  std::function<std::unique_ptr<Provider>(const std::string& base_url, const std::string& key,
                                          std::unique_ptr<HttpClient> http, Clock& clock)>
      make;
  std::string region;    // where the test's volume goes
  std::string gpu_type;  // what the test asks for
  std::string public_key;

  // The requests, as requests() counts them (method, path under the API prefix).
  std::string create_method, create_path;  // the pod create
  int create_ok_status = 0;                // its success status, counted when not 0
  std::string lookup_path;                 // the lookup by name after an ambiguous create (GET)
  std::string list_path;                   // list_pods (GET)
  std::string get_path;                    // get_pod (GET), the pod id follows

  // Happy path.
  std::string ssh_user;         // "" when the test does not pin it
  std::string mount_path;       // where the volume is mounted on the pod
  std::string pod_region;       // the emulator's pod region, "" when not pinned
  std::string volume_path;      // Pod::volume_path, "" when not pinned
  bool label_is_name = false;   // the provider keeps our name as its label (asserted when true)
  bool pins_volume_id = false;  // the emulator's pod records the volume id (asserted when true)

  // Arming a fault for the create.
  ArmCreate arm = ArmCreate::kNow;
  int requests_before_create = 0;  // kNow: best-effort requests that take the first faults
  int retry_after_s = 4;           // the Retry-After the create's 429s carry

  // Messages the user sees.
  std::string slow_offers;            // part of the timeout error of a slow offers call
  bool slow_offers_gave_up = true;    // that error also says "gave up after 5 attempts"
  std::string long_5xx;               // the whole error of offers under a long 502 burst
  std::string rate_limited;           // part of the error after more 429s than the retry budget
  std::string malformed_list;         // part of the error of a list that is not JSON
  bool lost_pod_names_itself = true;  // "find pod burst-j1-gpu" in the lost pod's delete error
  int lingering_gets = 3;             // at least this many get_pod answers showed it lingering
  bool count_create_after_timeout = false;  // exactly one create answered ok after a timeout

  // No capacity.
  std::string no_capacity_id;              // the provider's id of gpu_type, for Faults::no_capacity
  bool offers_before_no_capacity = false;  // read offers once first (caches the type list)
  NoCapacityOffers no_capacity_offers = NoCapacityOffers::kListedUnavailable;
  std::function<std::string(const PodRequest&)> no_capacity_error;

  // Auth.
  Call auth_call = Call::kCreate;       // the first call that shows a refused key
  std::string auth_error;               // its whole error
  Call wrong_key_call = Call::kOffers;  // a wrong key: kAuth, the key nowhere in the message
  Call no_key_call = Call::kListPods;   // no key at all: this whole error
  std::string no_key_error;
};

// gtest prints parameters by name.
inline void PrintTo(const CloudCase& c, std::ostream* os) { *os << c.name; }

// Lets a test arm a knob exactly when a given request goes out (e.g. only the create).
class HookedHttp : public HttpClient {
 public:
  HookedHttp(std::unique_ptr<HttpClient> inner, std::function<void(const HttpRequest&)>* hook)
      : inner_(std::move(inner)), hook_(hook) {}
  Result<HttpResponse> send(const HttpRequest& r) override {
    if (*hook_) (*hook_)(r);
    return inner_->send(r);
  }

 private:
  std::unique_ptr<HttpClient> inner_;
  std::function<void(const HttpRequest&)>* hook_;
};

class CloudFaults : public ::testing::Test {
 protected:
  explicit CloudFaults(const CloudCase& c)
      : c_(c),
        prefix_("/" + c.name + c.api_prefix),
        cloud_{fakecloud::EmulatorOptions{dir_.path() + "/fc", Duration(0), {{c.name, c.key}}},
               real_,
               {c.name}} {}

  // The driver under test, talking to cloud_ with `key` and this per-request timeout.
  std::unique_ptr<Provider> provider(const std::string& key, Duration timeout);

  void SetUp() override {
    ASSERT_TRUE(cloud_.start().ok());
    // 5 s per request: the in-process emulator answers in milliseconds, but beside the
    // background sanitizer builds one PUT took over 1 s (a clean-clone run, 2026-11-26). The
    // test of a create that times out makes its own 1 s driver.
    driver_ = provider(c_.key, Duration(5000));
    auto s = open_sqlite_store(":memory:");
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(*s);
    JobRecord job;
    job.id = "j1";
    job.pipeline = "faults";
    job.state = JobState::kRunning;
    job.created_ms = to_unix_ms(clock_.now());
    ASSERT_TRUE(store_->create_job(job).ok());
  }

  void TearDown() override {
    for (const auto& e : cloud_.state().request_log()) {
      EXPECT_FALSE(e.key_leaked) << e.method << " " << e.path;
      EXPECT_EQ(e.path.find(c_.key), std::string::npos);
      EXPECT_EQ(e.body.find(c_.key), std::string::npos);
    }
  }

  void set(const fakecloud::Faults& f) { cloud_.state().set_faults(c_.name, f); }

  // Arms `f` just before the next create request goes out.
  void on_create(const fakecloud::Faults& f);
  // Puts `f` on the next create the provider's way (CloudCase::arm); with kNow, `f`'s counts
  // (errors_5xx, rate_limits) grow by the requests that come before the create.
  void arm_create(fakecloud::Faults f);
  // One pod made and deleted, so the driver knows the types, the volume and its registered key.
  void warm_up();

  PodRequest request(const std::string& role = "gpu");
  PodRecord record(const std::string& role = "gpu");

  // The job's own lifecycle steps, on the driver under test and the fake clock.
  Result<Pod> create(const PodRequest& req, PodRecord* rec) {
    return create_recorded_pod(*store_, *driver_, clock_, req, rec);
  }
  Status verify_delete(PodRecord* rec) { return delete_and_verify(*store_, *driver_, clock_, rec); }
  Result<Pod> wait_running(const std::string& id) {
    return wait_until_running(*driver_, clock_, id, clock_.mono_now() + std::chrono::seconds(60),
                              nullptr);
  }
  // The error `call` gives on `p`, or "" when it succeeds; *code gets its code.
  std::string fails(Provider& p, Call call, ErrorCode* code);

  // The emulator's own state: what is still running, and every pod ever made.
  std::vector<fakecloud::FakePod> live() { return cloud_.state().live_pods(); }
  int pods_made() { return static_cast<int>(cloud_.state().all_pods().size()); }
  int pods_named(const std::string& name) {
    int n = 0;
    for (const auto& p : cloud_.state().all_pods()) n += p.name == name;
    return n;
  }

  // Requests logged with this method, a path starting with the API prefix + `path`, and status.
  int requests(const std::string& method, const std::string& path, int status) {
    int n = 0;
    for (const auto& e : cloud_.state().request_log())
      n += e.method == method && e.path.rfind(prefix_ + path, 0) == 0 && e.status == status;
    return n;
  }

  const CloudCase c_;
  const std::string prefix_;
  TempDir dir_;
  SystemClock real_;
  fakecloud::FakeCloud cloud_;
  FakeClock clock_;
  std::function<void(const HttpRequest&)> hook_;
  std::unique_ptr<Provider> driver_;
  std::unique_ptr<Store> store_;
};

// The table's rows (cloud_faults_cases.cpp).
const CloudCase& runpod_case();
const CloudCase& lambda_case();
const CloudCase& vast_case();

}  // namespace burst
