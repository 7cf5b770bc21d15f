// One contract, every provider: list, offers, volume find-or-create, create, get until running
// (and the SSH port accepts connections), list ours, delete twice, get after delete. Runs against
// the local cloud and each driver on its emulator (contract_targets.cpp lists them).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include "contract/contract_targets.h"
#include "fakes/temp_dir.h"

namespace burst::testing {
namespace {

bool tcp_accepts(const std::string& host, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &a.sin_addr);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

std::string unique_job() {
  std::random_device rd;
  return "contract" + std::to_string(rd() % 100000);
}

class ProviderContract : public ::testing::TestWithParam<ContractTarget> {
 protected:
  void SetUp() override {
    env_ = GetParam().make(dir_.path());
    ASSERT_NE(env_, nullptr);
  }
  Provider& p() { return env_->provider(); }

  TempDir dir_;
  std::unique_ptr<ContractEnv> env_;
};

TEST_P(ProviderContract, CreateRunListDeleteTwiceGetAfterDelete) {
  ASSERT_EQ(p().name(), GetParam().name);
  auto before = p().list_pods();
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_TRUE(before->empty());

  auto offers = p().offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  const Offer* offer = nullptr;
  for (const auto& o : *offers)
    if (o.available && o.gpu_count == 1 && !offer) offer = &o;
  ASSERT_NE(offer, nullptr) << "no available single-GPU offer";
  EXPECT_EQ(offer->provider, GetParam().name);

  auto vol = p().ensure_volume("contract-vol", 10, offer->region);
  ASSERT_TRUE(vol.ok()) << vol.error().message;
  auto vol2 = p().ensure_volume("contract-vol", 10, offer->region);
  ASSERT_TRUE(vol2.ok()) << vol2.error().message;
  EXPECT_EQ(vol2->id, vol->id) << "ensure_volume created a second volume of the same name";
  auto vols = p().list_volumes();
  ASSERT_TRUE(vols.ok()) << vols.error().message;
  // Where the list carries no name (Vast: the spec's Volume has none), the id is what identifies.
  int named = 0;
  for (const auto& v : *vols)
    named += p().volume_names_listed() ? v.name == "contract-vol" : v.id == vol->id;
  EXPECT_EQ(named, 1);

  PodRequest r;
  r.job_id = unique_job();
  r.name = pod_name(r.job_id, "gpu");
  r.gpu_type = offer->gpu_type;
  r.image = "python:3.11-slim";
  r.volume_id = vol->id;
  r.mount_path = "/workspace";
  r.ssh_public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIContractKeyOnlyForTests contract";
  r.env = {{"CONTRACT", "1"}};
  auto pod = p().create_pod(r);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_FALSE(pod->id.empty());
  EXPECT_EQ(pod->name, r.name);

  Pod running;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    auto g = p().get_pod(pod->id);
    ASSERT_TRUE(g.ok()) << g.error().message;
    running = *g;
    if (running.state == PodState::kRunning && running.ssh.port > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(running.state, PodState::kRunning);
  ASSERT_GT(running.ssh.port, 0);
  EXPECT_FALSE(running.ssh.user.empty());
  EXPECT_TRUE(tcp_accepts(running.ssh.host, running.ssh.port))
      << running.ssh.host << ":" << running.ssh.port;

  auto ours = p().list_pods();
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  ASSERT_EQ(ours->size(), 1u);
  EXPECT_EQ(ours->front().id, pod->id);
  EXPECT_EQ(ours->front().name, r.name);

  Status d1 = p().delete_pod(pod->id);
  ASSERT_TRUE(d1.ok()) << d1.error().message;
  Status d2 = p().delete_pod(pod->id);
  EXPECT_TRUE(d2.ok()) << "second delete: " << d2.error().message;

  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    auto g = p().get_pod(pod->id);
    gone = (!g.ok() && g.error().code == ErrorCode::kNotFound) ||
           (g.ok() && g->state == PodState::kGone);
    if (!g.ok() && !gone) ADD_FAILURE() << "get after delete: " << g.error().message;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << "pod " << pod->id << " still there after delete";
  auto after = p().list_pods();
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_TRUE(after->empty());
  EXPECT_FALSE(tcp_accepts(running.ssh.host, running.ssh.port)) << "the pod's sshd still listens";
  if (auto* cloud = env_->cloud()) {
    EXPECT_TRUE(cloud->state().live_pods().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Providers, ProviderContract, ::testing::ValuesIn(contract_targets()),
                         [](const auto& target) { return target.param.name; });

}  // namespace
}  // namespace burst::testing
