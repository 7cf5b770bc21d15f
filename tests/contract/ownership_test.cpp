// Two installations (state dirs) on one emulated cloud account, through each real driver: a pod
// created by one, named with its installation id as the runner names it, is listed by the driver
// for the other, which leaves it alone however long it waits (docs/daemon.md, "Ownership").
#include <gtest/gtest.h>

#include "app/reaper.h"
#include "burst/store.h"
#include "contract/contract_targets.h"
#include "fakes/fake_clock.h"
#include "fakes/forward_provider.h"
#include "fakes/temp_dir.h"

namespace burst::testing {
namespace {

class Ownership : public ::testing::TestWithParam<std::string> {};

TEST_P(Ownership, AnotherInstallationsPodIsListedButNeverTouched) {
  TempDir dir;
  FakeClock clock;
  auto env = emulated(GetParam(), dir.path(), Duration(0));
  Provider& cloud = env->provider();
  auto a = open_sqlite_store(dir.path() + "/a/burst.db");
  auto b = open_sqlite_store(dir.path() + "/b/burst.db");
  ASSERT_TRUE(a.ok() && b.ok());

  auto offers = cloud.offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  ASSERT_FALSE(offers->empty());
  const Offer& offer = offers->front();
  auto vol = cloud.ensure_volume("owner-vol", 10, offer.region);
  ASSERT_TRUE(vol.ok()) << vol.error().message;
  PodRequest r;
  r.job_id = "20261126-010203-ab12";
  r.name = pod_name(*(*a)->installation_id(), r.job_id, "gpu");
  r.gpu_type = offer.gpu_type;
  r.image = "python:3.11-slim";
  r.volume_id = vol->id;
  r.mount_path = "/workspace";
  r.ssh_public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOwner owner";
  auto pod = cloud.create_pod(r);
  ASSERT_TRUE(pod.ok()) << pod.error().message;

  ReaperDeps deps{**b,
                  clock,
                  {GetParam()},
                  [&](const std::string&) -> Result<std::unique_ptr<Provider>> {
                    return std::unique_ptr<Provider>(std::make_unique<ForwardProvider>(cloud));
                  },
                  {},
                  dir.path() + "/b/reports",
                  "burstd"};
  Reaper reaper(deps);
  ReapOptions burstd;
  burstd.orphan_grace = std::chrono::minutes(10);
  for (int pass = 0; pass < 3; ++pass) {
    auto actions = reaper.reap(burstd);
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, ReapOutcome::kForeign) << actions[0].outcome;
    EXPECT_EQ(actions[0].job_id, r.job_id) << "the job id survives the provider's naming";
    clock.advance(std::chrono::minutes(30));
  }
  auto cli = reaper.reap(ReapOptions{});
  ASSERT_EQ(cli.size(), 1u);
  EXPECT_EQ(cli[0].kind, ReapOutcome::kForeign);
  auto still = cloud.get_pod(pod->id);
  ASSERT_TRUE(still.ok()) << still.error().message;
  EXPECT_NE(still->state, PodState::kGone);
  ASSERT_TRUE(cloud.delete_pod(pod->id).ok());
}

INSTANTIATE_TEST_SUITE_P(EmulatedProviders, Ownership,
                         ::testing::Values("runpod", "lambda", "vast"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace burst::testing
