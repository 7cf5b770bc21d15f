// The pod's short answers to the step supervisor have one shape each; anything else is an error.
#include "job/step_answers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace burst {
namespace {

TEST(StepAnswers, AStatusIsANumberFrom0To255) {
  EXPECT_EQ(*parse_step_status("0\n"), 0);
  EXPECT_EQ(*parse_step_status("255"), 255);
  EXPECT_EQ(*parse_step_status("17\n"), 17);
  for (const std::string& bad :
       std::vector<std::string>{"", "\n", "256\n", "-1\n", "1 2\n", "0x1\n", "1\n\n", "0007\n",
                                std::string(1 << 20, '7')}) {
    auto r = parse_step_status(bad);
    ASSERT_FALSE(r.ok()) << bad.substr(0, 16);
    EXPECT_EQ(r.error().code, ErrorCode::kRemoteFailed);
    EXPECT_NE(r.error().message.find("no exit status"), std::string::npos) << r.error().message;
  }
}

TEST(StepAnswers, TheProbeAnswerIsTwoNulEndedPaths) {
  using namespace std::string_literals;
  auto a = parse_probe_answer("/workspace\0/home/u/.burst-pod\0"s);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->volume, "/workspace");
  EXPECT_EQ(a->pod_dir, "/home/u/.burst-pod");
  auto odd = parse_probe_answer("/v w\nx\0/d\0"s);  // any byte but NUL frames
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->volume, "/v w\nx");
  for (const std::string& bad : std::vector<std::string>{
           "", "/v\0"s, "/v\n/d\n", "\0/d\0"s, "/v\0\0"s, "/v\0/d\0/x\0"s, "/v\0/d"s,
           "/v\0"s + std::string(kMaxAnswer, 'd') + "\0"s, std::string(5000, 'v') + "\0/d\0"s}) {
    auto r = parse_probe_answer(bad);
    ASSERT_FALSE(r.ok()) << bad.substr(0, 16);
    EXPECT_NE(r.error().message.find("probe pod: unexpected answer"), std::string::npos);
  }
}

TEST(StepAnswers, YesOrNo) {
  EXPECT_TRUE(*parse_yes_no("yes\n"));
  EXPECT_FALSE(*parse_yes_no("no\n"));
  EXPECT_FALSE(parse_yes_no("noise yes\n").ok());
  EXPECT_FALSE(parse_yes_no("").ok());
}

}  // namespace
}  // namespace burst
