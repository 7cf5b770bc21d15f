// RunPod createPod's status table (v2 spec, createPod description; fakecloud/runpod_api.cpp):
// 400 whatever its words is "try your next candidate", 403 "skip this candidate, keep going",
// 402 "stop". The driver answers kNoCapacity for the first two (the job's fallbacks take the next
// candidate) and kAuth naming the balance for the third; none of them resends the create.
#include <gtest/gtest.h>

#include "integration/cloud_faults_fixture.h"

namespace burst {
namespace {

class RunpodCreateTable : public CloudFaults {
 protected:
  RunpodCreateTable() : CloudFaults(runpod_case()) {}

  Error create_fails(const fakecloud::Faults& f) {
    set(f);
    PodRecord rec = record();
    auto pod = create(request(), &rec);
    EXPECT_FALSE(pod.ok());
    EXPECT_EQ(pods_made(), 0);
    return pod.ok() ? Error{} : pod.error();
  }
};

TEST_F(RunpodCreateTable, A400InAnyWordsIsNoCapacitySoTheNextCandidateIsTried) {
  fakecloud::Faults f;
  f.no_capacity = {"NVIDIA GeForce RTX 4090"};
  f.capacity_detail = "no RTX 4090 free in US-KS-2 right now";  // none of the known phrases
  const Error e = create_fails(f);
  EXPECT_EQ(e.code, ErrorCode::kNoCapacity) << e.message;
  EXPECT_NE(e.message.find("HTTP 400: no RTX 4090 free in US-KS-2 right now"), std::string::npos)
      << e.message;
  EXPECT_EQ(requests("POST", "/v2/pods", 400), 1) << "never resent";
}

TEST_F(RunpodCreateTable, A403SkipsThisCandidateRatherThanCallingTheKeyBad) {
  fakecloud::Faults f;
  f.forbidden = {"NVIDIA GeForce RTX 4090"};
  const Error e = create_fails(f);
  EXPECT_EQ(e.code, ErrorCode::kNoCapacity) << e.message;
  EXPECT_NE(e.message.find("HTTP 403: access denied (this account cannot use this GPU pool; the "
                           "candidate is skipped)"),
            std::string::npos)
      << e.message;
  EXPECT_EQ(requests("POST", "/v2/pods", 403), 1);
  // The key itself works: offers and the pod list still answer.
  EXPECT_TRUE(driver_->list_pods().ok());
}

TEST_F(RunpodCreateTable, A402StopsNamingTheBalance) {
  fakecloud::Faults f;
  f.insufficient_balance = true;
  const Error e = create_fails(f);
  EXPECT_EQ(e.code, ErrorCode::kAuth) << e.message;
  EXPECT_NE(e.message.find("HTTP 402: insufficient balance"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("add funds to the RunPod account; no other candidate is tried"),
            std::string::npos)
      << e.message;
  EXPECT_EQ(requests("POST", "/v2/pods", 402), 1);
}

}  // namespace
}  // namespace burst
