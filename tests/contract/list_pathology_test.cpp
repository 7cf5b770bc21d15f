// Provider pathologies beyond one driver's faults (issue 8): a pod list that starts answering an
// empty body, a changed shape, or the documented shape with every pod hidden. burst must create
// nothing it could not find again, forget no pod it knows, and stop a job before relying on a
// list that hides pods. Each emulated provider, with the job's own lifecycle steps on a fake clock
// and the emulator as the judge.
#include <gtest/gtest.h>

#include "burst/store.h"
#include "contract/contract_targets.h"
#include "fakes/fake_clock.h"
#include "fakes/temp_dir.h"
#include "job/pod_lifecycle.h"

namespace burst::testing {
namespace {

std::vector<std::string> emulated_providers() { return {"runpod", "lambda", "vast"}; }

class ListPathology : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    env_ = emulated(GetParam(), dir_.path(), Duration(0));
    auto s = open_sqlite_store(":memory:");
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(*s);
    JobRecord job;
    job.id = "j1";
    job.pipeline = "pathology";
    job.state = JobState::kRunning;
    job.created_ms = to_unix_ms(clock_.now());
    ASSERT_TRUE(store_->create_job(job).ok());
    auto offers = provider().offers(true);
    ASSERT_TRUE(offers.ok()) << offers.error().message;
    for (const auto& o : *offers)
      if (o.available && o.gpu_count == 1) {
        offer_ = o;
        break;
      }
    ASSERT_FALSE(offer_.gpu_type.empty()) << "no available offer at " << GetParam();
  }

  Provider& provider() { return env_->provider(); }
  fakecloud::CloudState& cloud() { return env_->cloud()->state(); }

  void set_list_fault(const std::string& fault) {
    fakecloud::Faults f;
    f.list_fault = fault;
    cloud().set_faults(GetParam(), f);
  }

  PodRequest request(const std::string& role) {
    auto vol = provider().ensure_volume("pathology-vol", 10, offer_.region);
    EXPECT_TRUE(vol.ok()) << vol.error().message;
    PodRequest r;
    r.job_id = "j1";
    r.name = pod_name("j1", role);
    r.gpu = true;
    r.gpu_type = offer_.gpu_type;
    r.gpu_count = 1;
    r.image = "python:3.11-slim";
    r.volume_id = vol.ok() ? vol->id : "";
    r.mount_path = "/workspace";
    r.ssh_public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPathologyKey pathology";
    return r;
  }

  PodRecord record(const std::string& role) {
    PodRecord rec;
    rec.job_id = "j1";
    rec.role = role;
    rec.gpu_type = offer_.gpu_type;
    rec.gpu_count = 1;
    return rec;
  }

  int pods_made() { return static_cast<int>(cloud().all_pods().size()); }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<ContractEnv> env_;
  std::unique_ptr<Store> store_;
  Offer offer_;
};

// Empty body, or a shape the provider never documented: an error, never "no pods"; no create
// follows; the pods burst knows are still deleted by id; one whose id it never learned is kept.
TEST_P(ListPathology, AnUnreadableListStopsEveryCreateAndForgetsNoPod) {
  for (const std::string fault : {"empty-body", "changed-shape"}) {
    SCOPED_TRACE(fault);
    PodRecord known = record("gpu");
    auto pod = create_recorded_pod(*store_, provider(), clock_, request("gpu"), &known);
    ASSERT_TRUE(pod.ok()) << pod.error().message;
    const int made = pods_made();

    set_list_fault(fault);
    auto listed = provider().list_pods();
    ASSERT_FALSE(listed.ok()) << "a broken list read as " << listed->size() << " pods";

    // The runner's check before every create (E2ERunpod.ABrokenPodListMeansNothingIsCreated
    // runs it through `burst run`).
    Status refused = check_list_readable(provider());
    ASSERT_FALSE(refused.ok()) << "a broken list passed the check before a create";
    EXPECT_NE(refused.error().message.find("refusing to create a pod, because " + GetParam() +
                                           "'s pod list cannot be read"),
              std::string::npos)
        << refused.error().message;
    EXPECT_EQ(pods_made(), made);

    // The same pod, as if its create had timed out before the id came back: it must stay on
    // record, not be concluded "never created" from a list burst cannot read.
    PodRecord unresolved = known;
    unresolved.pod_id.clear();
    unresolved.state = PodRecordState::kCreating;
    Status st = delete_and_verify(*store_, provider(), clock_, &unresolved);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(unresolved.state, PodRecordState::kCreateFailed);
    EXPECT_NE(unresolved.state, PodRecordState::kDeleted);

    // Deleting by id needs no list.
    ASSERT_TRUE(delete_and_verify(*store_, provider(), clock_, &known).ok());
    EXPECT_EQ(known.state, PodRecordState::kDeleted);
    EXPECT_TRUE(cloud().live_pods().empty());
    set_list_fault("");
  }
}

// The anchor's bug: an API change made every instance invisible in the list. The first job
// that creates a pod notices, before it relies on the list, and the pod goes by its id.
TEST_P(ListPathology, AListThatHidesPodsStopsTheJobBeforeItReliesOnIt) {
  set_list_fault("hidden");
  PodRecord rec = record("gpu");
  auto pod = create_recorded_pod(*store_, provider(), clock_, request("gpu"), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  auto running = wait_until_running(provider(), clock_, pod->id,
                                    clock_.mono_now() + std::chrono::seconds(60), nullptr);
  ASSERT_TRUE(running.ok()) << running.error().message;
  Status listed = check_pod_listed(provider(), clock_, pod->id);
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.error().message,
            GetParam() + " reports pod " + pod->id +
                " running, but its pod list (0 pods of ours) does not show it. burst finds lost "
                "pods through that list, so it stops here rather than rely on it; the pod is "
                "deleted by its id");
  ASSERT_TRUE(delete_and_verify(*store_, provider(), clock_, &rec).ok());
  EXPECT_TRUE(cloud().live_pods().empty());

  set_list_fault("");
  PodRecord ok = record("cpu");
  auto again = create_recorded_pod(*store_, provider(), clock_, request("cpu"), &ok);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(check_pod_listed(provider(), clock_, again->id).ok());
  ASSERT_TRUE(delete_and_verify(*store_, provider(), clock_, &ok).ok());
}

INSTANTIATE_TEST_SUITE_P(Emulated, ListPathology, ::testing::ValuesIn(emulated_providers()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace burst::testing
