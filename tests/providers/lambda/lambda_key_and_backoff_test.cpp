// Lambda: burst's SSH key already registered under the user's own name is reused (Lambda refuses
// the same public key twice, fakecloud/lambda_api.cpp; SkyPilot matches by public_key), and a 429
// without Retry-After is retried after at least 10 s, as SkyPilot does (issue 32, item 10).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "integration/cloud_faults_fixture.h"

namespace burst {
namespace {

class LambdaKeyAndBackoff : public CloudFaults {
 protected:
  LambdaKeyAndBackoff() : CloudFaults(lambda_case()) {}
};

TEST_F(LambdaKeyAndBackoff, AKeyRegisteredUnderTheUsersOwnNameIsReusedNotAddedAgain) {
  // The same key (another comment) as the user registered it in Lambda's console.
  cloud_.state().add_account_key("lambda",
                                 "0123456789abcdef0123456789abcdef\tmy-laptop\t"
                                 "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFaultsKey me@laptop");
  PodRecord rec = record();
  auto pod = create(request(), &rec);
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(requests("POST", "/ssh-keys", 200) + requests("POST", "/ssh-keys", 400), 0)
      << "no second registration of the same key";
  bool launched_with_it = false;
  for (const auto& e : cloud_.state().request_log())
    if (e.method == "POST" && e.path.find("/instance-operations/launch") != std::string::npos) {
      auto b = nlohmann::json::parse(e.body, nullptr, false);
      launched_with_it = b.is_object() && b.value("ssh_key_names", nlohmann::json()) ==
                                              nlohmann::json::array({"my-laptop"});
    }
  EXPECT_TRUE(launched_with_it);
  ASSERT_TRUE(verify_delete(&rec).ok());
  EXPECT_TRUE(live().empty());
}

TEST_F(LambdaKeyAndBackoff, A429WithoutRetryAfterWaitsAtLeastTenSeconds) {
  fakecloud::Faults f;
  f.rate_limits = 1;  // Lambda documents no Retry-After
  set(f);
  const TimePoint before = clock_.now();
  auto pods = driver_->list_pods();
  ASSERT_TRUE(pods.ok()) << pods.error().message;
  EXPECT_GE(clock_.now() - before, std::chrono::seconds(10));
  EXPECT_LE(clock_.now() - before, std::chrono::seconds(20));
  EXPECT_EQ(requests("GET", "/instances", 429), 1);
  EXPECT_EQ(requests("GET", "/instances", 200), 1);
}

}  // namespace
}  // namespace burst
