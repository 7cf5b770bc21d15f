// The fixture every cloud driver's fault tests share (runpod_, lambda_, vast_faults_test.cpp):
// the in-process emulator serving one provider with its expected key, the driver under test on a
// fake clock (backoff and polling take no real time; the emulator and its sshd pods are real),
// SQLite in memory holding job "j1", and at the end the check that the key never left the
// Authorization header. Each suite supplies only how its driver is made and its own requests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "burst/store.h"
#include "fakecloud/fake_cloud.h"
#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "job/pod_lifecycle.h"

namespace burst {

class CloudFaultsTest : public ::testing::Test {
 protected:
  // `api_prefix`: the path after "/<provider>" that requests() counts under ("/api/v1").
  CloudFaultsTest(const std::string& provider, const std::string& key,
                  const std::string& api_prefix = "")
      : name_(provider),
        key_(key),
        prefix_("/" + provider + api_prefix),
        cloud_{fakecloud::EmulatorOptions{dir_.path() + "/fc", Duration(0), {{provider, key}}},
               real_,
               {provider}} {}

  // The driver under test, talking to cloud_ with `key` and this per-request timeout.
  virtual std::unique_ptr<Provider> provider(const std::string& key, Duration timeout) = 0;

  void SetUp() override {
    ASSERT_TRUE(cloud_.start().ok());
    driver_ = provider(key_, Duration(1000));
    auto s = open_sqlite_store(":memory:");
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(*s);
    JobRecord job;
    job.id = "j1";
    job.pipeline = "faults";
    job.state = "running";
    job.created_ms = to_unix_ms(clock_.now());
    ASSERT_TRUE(store_->create_job(job).ok());
  }

  void TearDown() override {
    for (const auto& e : cloud_.state().request_log()) {
      EXPECT_FALSE(e.key_leaked) << e.method << " " << e.path;
      EXPECT_EQ(e.path.find(key_), std::string::npos);
      EXPECT_EQ(e.body.find(key_), std::string::npos);
    }
  }

  void set(const fakecloud::Faults& f) { cloud_.state().set_faults(name_, f); }

  // The job's own lifecycle steps, on the driver under test and the fake clock.
  Result<Pod> create(const PodRequest& req, PodRecord* rec) {
    return create_recorded_pod(*store_, *driver_, clock_, req, rec);
  }
  Status verify_delete(PodRecord* rec) { return delete_and_verify(*store_, *driver_, clock_, rec); }

  Result<Pod> wait_running(const std::string& id) {
    return wait_until_running(*driver_, clock_, id, clock_.now() + std::chrono::seconds(60),
                              nullptr);
  }

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

  const std::string name_, key_, prefix_;
  TempDir dir_;
  SystemClock real_;
  fakecloud::FakeCloud cloud_;
  FakeClock clock_;
  std::unique_ptr<Provider> driver_;
  std::unique_ptr<Store> store_;
};

}  // namespace burst
