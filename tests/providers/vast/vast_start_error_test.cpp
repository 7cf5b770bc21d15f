// A Vast instance whose container cannot start stays actual_status "created" with the runtime's
// error in status_msg (fakecloud/vast_api.cpp, Faults::start_error; dstack reads the same words).
// The wait for SSH ends at once with Vast's words, the instance is deleted and verified gone, and
// the next create goes to another machine (issue 32, item 9).
#include <gtest/gtest.h>

#include "integration/cloud_faults_fixture.h"

namespace burst {
namespace {

constexpr const char* kOciError =
    "Error response from daemon: failed to create task for container: failed to create shim "
    "task: OCI runtime create failed: runc create failed: unable to start container process";

class VastStartError : public CloudFaults {
 protected:
  VastStartError() : CloudFaults(vast_case()) {}

  // A request with no volume, so the driver may choose the machine.
  PodRequest free_request(const std::string& name) {
    PodRequest r = request();
    r.volume_id.clear();
    r.name = name;
    return r;
  }
};

TEST_F(VastStartError,
       TheWaitEndsWithVastsWordsTheInstanceGoesAndTheNextCreateTakesAnotherMachine) {
  fakecloud::Faults f;
  f.start_error = kOciError;
  f.start_error_machine = 41202;  // the cheapest RTX 4090 machine, which the driver picks first
  set(f);
  PodRecord rec = record();
  auto pod = create(free_request("burst-j1-gpu"), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_EQ(cloud_.state().all_pods().size(), 1u);
  EXPECT_EQ(cloud_.state().all_pods()[0].region, "41202");
  const MonoTime start = clock_.mono_now();
  std::string shown;
  auto running =
      wait_until_running(*driver_, clock_, pod->id, clock_.mono_now() + std::chrono::minutes(30),
                         nullptr, nullptr, [&](const Pod& p) { shown = p.status_note; });
  ASSERT_FALSE(running.ok());
  EXPECT_EQ(running.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(running.error().message.find("vast says: Error response from daemon: failed to "
                                         "create task"),
            std::string::npos)
      << running.error().message;
  EXPECT_NE(running.error().message.find("OCI runtime create failed"), std::string::npos);
  EXPECT_EQ(shown.rfind("Error response from daemon", 0), 0u) << shown;
  EXPECT_LT(clock_.mono_now() - start, std::chrono::seconds(120)) << "fails fast";
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());

  // The next create (a worker's retry, the job's next attempt) avoids that machine.
  PodRecord again = record();
  auto second = create(free_request("burst-j1-gpu1r1"), &again);
  ASSERT_TRUE(second.ok()) << second.error().message;
  ASSERT_EQ(cloud_.state().all_pods().size(), 2u);
  for (const auto& p : cloud_.state().all_pods()) {
    if (p.id == second->id) {
      EXPECT_EQ(p.region, "41201") << "another machine";
    }
  }
  auto up = wait_running(second->id);
  ASSERT_TRUE(up.ok()) << up.error().message;
  ASSERT_TRUE(verify_delete(&again).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(VastStartError, WhileItLoadsTheWaitShowsVastsStatus) {
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto got = driver_->get_pod(pod->id);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_TRUE(got->status_note == "Pulling image" || got->status_note == "success, running")
      << got->status_note;
  ASSERT_TRUE(verify_delete(&rec).ok());
}

}  // namespace
}  // namespace burst
