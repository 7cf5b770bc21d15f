// The CPU hand-off choice for providers without CPU pods (plan/handoff.h): the GPU pod's extra
// billed time against the user's machine, with each option's cost stated.
#include "plan/handoff.h"

#include <gtest/gtest.h>

#include "registry.h"

namespace burst {
namespace {

// Whether the provider's registry row rents CPU pods (ProviderTraits::cpu_pods).
bool has_cpu_pods(const std::string& provider) { return find_provider_traits(provider)->cpu_pods; }

HandoffInput input(double usd_per_hour, double increment, double before, double bytes) {
  HandoffInput in;
  in.gpu_usd_per_hour = usd_per_hour;
  in.billing_increment_s = increment;
  in.gpu_seconds_before = before;
  in.upload_bytes = bytes;
  return in;
}

TEST(Handoff, ProvidersWithoutCpuPods) {
  EXPECT_FALSE(has_cpu_pods("lambda"));
  EXPECT_FALSE(has_cpu_pods("vast"));
  EXPECT_TRUE(has_cpu_pods("runpod"));
  EXPECT_TRUE(has_cpu_pods("local"));
  EXPECT_STREQ(to_string(Handoff::kGpuPod), "gpu-pod");
  EXPECT_STREQ(to_string(Handoff::kLocal), "local");
}

// Vast's volumes live on one machine (REFERENCE §4.7): its row says so, which is also why it has
// no CPU pods above (a CPU instance could not mount the GPU pod's volume). The others' volumes
// mount on any pod of their region.
TEST(Handoff, OnlyVastVolumesAreMachineLocal) {
  EXPECT_TRUE(find_provider_traits("vast")->volumes_machine_local);
  EXPECT_FALSE(find_provider_traits("runpod")->volumes_machine_local);
  EXPECT_FALSE(find_provider_traits("lambda")->volumes_machine_local);
  EXPECT_FALSE(find_provider_traits("local")->volumes_machine_local);
}

TEST(Handoff, PerSecondBillingMakesTheGpuPodCostMoreThanThisMachine) {
  // 100 MB: 10 s + 2 s on the pod's 50 MB/s, 10 s + 40 s on a 2.5 MB/s home uplink.
  HandoffChoice c = choose_handoff(input(0.75, 1, 600, 100e6));
  EXPECT_EQ(c.where, Handoff::kLocal);
  EXPECT_DOUBLE_EQ(c.gpu_pod_s, 12);
  EXPECT_DOUBLE_EQ(c.local_s, 50);
  EXPECT_NEAR(c.gpu_pod_usd, 0.75 * 12 / 3600, 1e-12);
  EXPECT_DOUBLE_EQ(c.local_usd, 0);
  EXPECT_EQ(c.why,
            "upload from this machine after the pull: cheaper than keeping the GPU pod for it "
            "(GPU pod $0.0025, 12 s; this machine $0.0000, 50 s)");
}

TEST(Handoff, AnUploadThatFitsInTheLastBilledMinuteRunsOnTheGpuPod) {
  // Lambda bills per minute: 30 s used of the first minute leaves 30 s already paid for.
  HandoffChoice c = choose_handoff(input(0.75, 60, 30, 100e6));
  EXPECT_EQ(c.where, Handoff::kGpuPod);
  EXPECT_DOUBLE_EQ(c.gpu_pod_usd, 0);
  EXPECT_NE(c.why.find("upload from the GPU pod before deleting it"), std::string::npos) << c.why;
  EXPECT_DOUBLE_EQ(c.usd(), 0);
  EXPECT_DOUBLE_EQ(c.seconds(), 12);
}

TEST(Handoff, AnUploadThatStartsANewMinuteRunsOnThisMachine) {
  HandoffChoice c = choose_handoff(input(0.75, 60, 55, 100e6));
  EXPECT_EQ(c.where, Handoff::kLocal);
  EXPECT_NEAR(c.gpu_pod_usd, 0.75 * 60 / 3600, 1e-12) << "a whole extra minute";
  // Unknown lifetime: the upload's own time, rounded up.
  HandoffChoice unknown = choose_handoff(input(0.75, 60, 0, 100e6));
  EXPECT_NEAR(unknown.gpu_pod_usd, 0.75 * 60 / 3600, 1e-12);
  EXPECT_EQ(unknown.where, Handoff::kLocal);
}

TEST(Handoff, BigArtefactsOnAFreeOrSlackGpuGoFromThePod) {
  // 10 GB: 210 s on the pod, 4010 s from home; a job with 5 min of paid-for slack per hour.
  HandoffChoice c = choose_handoff(input(2.0, 3600, 3000, 10e9));
  EXPECT_EQ(c.where, Handoff::kGpuPod);
  EXPECT_DOUBLE_EQ(c.gpu_pod_s, 210);
  EXPECT_DOUBLE_EQ(c.local_s, 4010);
}

TEST(Handoff, WithoutArtefactsThisMachineHasNothingToUpload) {
  HandoffInput in = input(0.75, 1, 600, 100e6);
  in.inputs_come_home = false;
  HandoffChoice c = choose_handoff(in);
  EXPECT_EQ(c.where, Handoff::kGpuPod);
  EXPECT_NE(c.why.find("the spec pulls no artefacts"), std::string::npos) << c.why;
}

}  // namespace
}  // namespace burst
