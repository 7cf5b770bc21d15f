// job/volume_binding: a spec volume is found again through the store's mapping, by id, on a
// provider whose list carries no name (Vast); the row is written before the create call.
#include "job/volume_binding.h"

#include <gtest/gtest.h>

#include <map>

#include "fakes/fake_clock.h"

namespace burst {
namespace {

// The provider's side: volumes by id, with no names, shared by every driver instance (as a real
// account is shared by every burst process).
struct Account {
  std::map<std::string, Volume> volumes;
  int creates = 0;
};

class NamelessProvider : public Provider {
 public:
  NamelessProvider(Account& a, Store& s) : a_(a), store_(s) {}
  std::string name() const override { return "vast"; }
  Result<std::vector<Offer>> offers(bool) override { return std::vector<Offer>{}; }
  Result<Volume> ensure_volume(const std::string& n, int size, const std::string& r) override {
    // Record-before-rely: the mapping row exists, "creating", when the create is sent.
    auto row = store_.get_volume("vast", n, r);
    EXPECT_TRUE(row.ok() && row->has_value() && (*row)->state == "creating");
    Volume v{std::to_string(100 + a_.creates++), "", r, size};
    v.usd_per_gb_month = 0.15;
    a_.volumes[v.id] = v;
    return v;
  }
  Result<std::vector<Volume>> list_volumes() override {
    std::vector<Volume> out;
    for (const auto& [id, v] : a_.volumes) out.push_back(v);
    return out;
  }
  Result<Pod> create_pod(const PodRequest&) override { return Pod{}; }
  Result<Pod> get_pod(const std::string&) override { return Pod{}; }
  Result<std::vector<Pod>> list_pods() override { return std::vector<Pod>{}; }
  Status delete_pod(const std::string&) override { return Status::Ok(); }
  bool volume_names_listed() const override { return false; }

 private:
  Account& a_;
  Store& store_;
};

class VolumeBindingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(":memory:");
    ASSERT_TRUE(s.ok());
    store_ = std::move(s).value();
  }
  Result<Volume> bind(const std::string& region = "Washington, US (machine 41201)") {
    NamelessProvider fresh(account_, *store_);  // a new process: no memory of earlier runs
    return bind_volume(*store_, fresh, clock_, "tts-cache", 10, region);
  }
  Account account_;
  std::unique_ptr<Store> store_;
  FakeClock clock_;
};

TEST_F(VolumeBindingTest, ASecondRunFindsTheSameVolumeByTheRecordedId) {
  auto first = bind();
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = bind();
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->id, first->id);
  EXPECT_EQ(account_.creates, 1) << "a second volume for the same spec volume and region";
  EXPECT_EQ(second->name, "tts-cache");
  auto row = store_->get_volume("vast", "tts-cache", "Washington, US (machine 41201)");
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((*row)->state, "ready");
  EXPECT_EQ((*row)->volume_id, first->id);
  EXPECT_DOUBLE_EQ((*row)->usd_per_gb_month, 0.15);
}

TEST_F(VolumeBindingTest, AnotherRegionGetsItsOwnVolume) {
  auto a = bind();
  auto b = bind("Quebec, CA (machine 41202)");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->id, b->id);
  EXPECT_EQ(account_.creates, 2);
}

TEST_F(VolumeBindingTest, ARecordedVolumeThatIsGoneIsReplacedAndTheRunIsTold) {
  auto first = bind();
  ASSERT_TRUE(first.ok());
  account_.volumes.clear();  // deleted outside burst
  auto again = bind();
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_NE(again->id, first->id);
  EXPECT_NE(again->note.find("(" + first->id + ") no longer exists"), std::string::npos)
      << again->note;
  auto found = find_bound_volume(*store_, *std::make_unique<NamelessProvider>(account_, *store_),
                                 "tts-cache", "elsewhere");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->id, again->id) << "reattach finds the recorded volume of another region";
}

}  // namespace
}  // namespace burst
