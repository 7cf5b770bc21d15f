// Vast offer quality (issue 32, item 8): every search asks for a direct port, a reliability and a
// download floor (overridable in config.yaml), and a create asks for a driver that runs the
// image's CUDA. The emulator's cheapest RTX 4090 host (machine 41203, fakecloud/vast_api.cpp) is
// unreliable, has no direct port and an old driver, so a CUDA 12 image's container never starts
// there: burst must never pick it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "burst/config.h"
#include "fakes/temp_dir.h"
#include "http/curl_http_client.h"
#include "integration/cloud_faults_fixture.h"
#include "registry.h"
#include "vast/vast_provider.h"

namespace burst {
namespace {

TEST(VastQuality, TheImagesCudaIsReadFromItsTag) {
  EXPECT_DOUBLE_EQ(vast_image_cuda("pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"), 12.1);
  EXPECT_DOUBLE_EQ(vast_image_cuda("vllm/vllm-openai:v0.6-cu124"), 12.4);
  EXPECT_DOUBLE_EQ(vast_image_cuda("nvidia/cuda:12.4.1-base-ubuntu22.04"), 12.4);
  EXPECT_DOUBLE_EQ(vast_image_cuda("ghcr.io/x/y:cuda-11.8"), 11.8);
  EXPECT_DOUBLE_EQ(vast_image_cuda("python:3.11-slim"), 0);
  EXPECT_DOUBLE_EQ(vast_image_cuda("registry:5000/cuda12.1"), 0) << "a port is not a tag";
  EXPECT_DOUBLE_EQ(vast_image_cuda("ubuntu"), 0);
}

TEST(VastQuality, TheSearchCarriesTheFloorsAndConfigOverridesThem) {
  auto b = nlohmann::json::parse(vast_search_offers_body({"RTX 4090"}, 1, 0, 32, 50));
  EXPECT_EQ(b["reliability"], nlohmann::json({{"gte", 0.95}}));
  EXPECT_EQ(b["direct_port_count"], nlohmann::json({{"gte", 1.0}}));
  EXPECT_EQ(b["inet_down"], nlohmann::json({{"gte", 100.0}}));
  EXPECT_FALSE(b.contains("cuda_max_good"));
  VastOfferQuality q;
  q.min_reliability = 0;
  q.min_cuda = 12.4;
  b = nlohmann::json::parse(vast_search_offers_body({"RTX 4090"}, 1, 0, 32, 50, q));
  EXPECT_FALSE(b.contains("reliability"));
  EXPECT_EQ(b["cuda_max_good"], nlohmann::json({{"gte", 12.4}}));
}

TEST(VastQuality, ConfigYamlReadsOfferFiltersAndRefusesUnknownOnes) {
  TempDir t;
  const std::string dir = t.path() + "/config";
  std::filesystem::create_directories(dir);
  const std::map<std::string, std::string> env = {{"BURST_CONFIG_DIR", dir}, {"HOME", t.path()}};
  std::ofstream(dir + "/config.yaml", std::ios::trunc)
      << "providers:\n  vast:\n    offer_filters: {min_reliability: 0.9, min_cuda: 12.2}\n";
  auto c = load_config(env, all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->clouds["vast"].offer_filters,
            (std::map<std::string, double>{{"min_cuda", 12.2}, {"min_reliability", 0.9}}));
  std::ofstream(dir + "/config.yaml", std::ios::trunc)
      << "providers:\n  vast:\n    offer_filters: {min_reliabilty: 0.9}\n";
  auto bad = load_config(env, all_provider_traits());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("min_reliability"), std::string::npos) << "did you mean";
}

class VastOfferQualityDriver : public CloudFaults {
 protected:
  VastOfferQualityDriver() : CloudFaults(vast_case()) {}
  PodRequest cuda_request(const std::string& name) {
    PodRequest r = request();
    r.volume_id.clear();  // any machine
    r.name = name;
    r.image = "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime";
    return r;
  }
  std::string machine_of(const std::string& id) {
    for (const auto& p : cloud_.state().all_pods())
      if (p.id == id) return p.region;
    return "";
  }
};

TEST_F(VastOfferQualityDriver, ThePoorCheapHostIsNeverOfferedNorRented) {
  auto offers = driver_->offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  for (const auto& o : *offers)
    EXPECT_EQ(o.region.find("machine 41203"), std::string::npos) << o.region;
  PodRecord rec = record();
  auto pod = create(cuda_request("burst-j1-gpu"), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(machine_of(pod->id), "41202") << "the cheapest good RTX 4090 host";
  auto up = wait_running(pod->id);
  EXPECT_TRUE(up.ok()) << up.error().message;
  ASSERT_TRUE(verify_delete(&rec).ok());
}

// resources.disk_gb asks the search for machines with that much free disk (disk_space): the
// emulator's hosts have 500 GB, so 600 GB finds none and nothing is created; 400 GB is rented
// with that disk.
TEST_F(VastOfferQualityDriver, AMachineWithoutRoomForThePodsDiskIsNeverRented) {
  PodRecord rec = record();
  PodRequest big = cuda_request("burst-j1-gpu");
  big.disk_gb = 600;
  auto none = create(big, &rec);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kNoCapacity) << none.error().message;
  EXPECT_TRUE(cloud_.state().all_pods().empty());
  PodRequest fits = cuda_request("burst-j1-gpu2");
  fits.disk_gb = 400;
  PodRecord fits_rec = record();
  auto pod = create(fits, &fits_rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  ASSERT_EQ(cloud_.state().all_pods().size(), 1u);
  EXPECT_EQ(cloud_.state().all_pods()[0].extra.value("disk", 0.0), 400.0)
      << cloud_.state().all_pods()[0].extra.dump();
  ASSERT_TRUE(verify_delete(&fits_rec).ok());
}

// What the filters prevent, as the emulator models it: without them the driver rents the cheap
// host, whose driver cannot run the image's CUDA, and the container never starts.
TEST_F(VastOfferQualityDriver, WithoutTheFloorsTheCheapHostsOldDriverFailsTheContainer) {
  VastOptions o;
  o.base_url = cloud_.provider_url("vast");
  o.api_key = c_.key;
  o.quality = VastOfferQuality{0, 0, 0, 0};
  auto http = make_curl_http_client();
  auto loose = make_vast_provider(o, std::move(http), clock_);
  PodRequest req = cuda_request("burst-j1-gpu");
  req.image = "python:3.11-slim";  // no CUDA named: no CUDA floor at create either
  PodRecord rec = record();
  auto pod = create_recorded_pod(*store_, *loose, clock_, req, &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(machine_of(pod->id), "41203");
  ASSERT_TRUE(delete_and_verify(*store_, *loose, clock_, &rec).ok());
  PodRecord cuda_rec = record();
  auto cuda_pod =
      create_recorded_pod(*store_, *loose, clock_, cuda_request("burst-j1-gpu2"), &cuda_rec);
  ASSERT_TRUE(cuda_pod.ok()) << cuda_pod.error().message;
  EXPECT_EQ(machine_of(cuda_pod->id), "41202") << "the image's CUDA floor still applies";
  ASSERT_TRUE(delete_and_verify(*store_, *loose, clock_, &cuda_rec).ok());
}

}  // namespace
}  // namespace burst
