// RunPod data centres without network volumes (`DataCenter.networkVolumeTypes`, "Empty = none",
// v2 GET /v2/catalog/datacenters). Every burst pod mounts the spec's network volume, so an offer
// in such a data centre (the emulator's CA-MTL-3, listed first) is no offer: before issue 32 the
// plan could choose it, the volume's create answered 400 and the job failed at provision. And a
// CPU pod (the upload's) gets a flavour its volume's data centre offers.
#include <gtest/gtest.h>

#include "integration/cloud_faults_fixture.h"

namespace burst {
namespace {

class RunpodDataCentres : public CloudFaults {
 protected:
  RunpodDataCentres() : CloudFaults(runpod_case()) {}
};

TEST_F(RunpodDataCentres, NoOfferIsInADataCentreWithoutNetworkVolumes) {
  for (bool gpu : {true, false}) {
    auto offers = driver_->offers(gpu);
    ASSERT_TRUE(offers.ok()) << offers.error().message;
    ASSERT_FALSE(offers->empty());
    for (const auto& o : *offers) EXPECT_NE(o.region, "CA-MTL-3") << o.gpu_type;
    // The first offer's data centre takes the volume, as the plan's choice would.
    auto vol = driver_->ensure_volume(gpu ? "dc-gpu" : "dc-cpu", 10, offers->front().region);
    EXPECT_TRUE(vol.ok()) << vol.error().message;
  }
  // What the plan would have met there: the emulator refuses, as the catalog says it would.
  auto refused = driver_->ensure_volume("dc-none", 10, "CA-MTL-3");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("does not support network volumes"), std::string::npos)
      << refused.error().message;
}

// The upload's CPU pod goes to its volume's data centre, where the cheapest flavour anywhere
// (cpu3c) has no stock in the emulator's US-KS-2: the pod gets the cheapest flavour offered there.
TEST_F(RunpodDataCentres, ACpuPodGetsAFlavourItsVolumesDataCentreOffers) {
  auto cpus = driver_->offers(false);
  ASSERT_TRUE(cpus.ok()) << cpus.error().message;
  PodRecord rec = record("cpu");
  PodRequest req = request("cpu");  // the volume in US-KS-2 (runpod_case().region)
  req.gpu = false;
  req.gpu_type = "cpu";
  auto pod = create(req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  for (const auto& p : cloud_.state().all_pods()) {
    EXPECT_EQ(p.region, "US-KS-2");
    EXPECT_EQ(p.gpu_type, "cpu5c") << "cpu3c is not offered in US-KS-2";
  }
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

}  // namespace
}  // namespace burst
