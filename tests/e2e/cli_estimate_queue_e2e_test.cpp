// `burst estimate` for a serving engine that queues: the rows it prices at fewer sequences than
// asked, and what it says about them (docs/cost-model.md, "Headroom and GPU count").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

TEST(E2ECli, EstimateSaysWhereABatchingEngineQueuesWhatItsShareDoesNotHold) {
  // 64 sequences of Llama 3.1 8B at 8192 tokens on one card: vLLM runs what its share holds and
  // queues the rest, and the table says which rows do and how many they run at once.
  BurstHome home;
  std::string out, err;
  std::vector<std::string> ask = {"estimate",  "--model",       "llama-3.1-8b",
                                  "--mode",    "infer",         "--engine",
                                  "vllm",      "--concurrency", "64",
                                  "--context", "8192",          "--tokens",
                                  "1M",        "--gpus",        "1"};
  ASSERT_EQ(run_burst(home, ask, &out, &err), 0) << err;
  EXPECT_NE(out.find("vllm runs fewer than the 64 sequences asked at once (what its memory share "
                     "holds, or its scheduler's cap); these run that "
                     "many at once and queue the rest (the time counts the rounds): "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("RTX_4090 x1 5"), std::string::npos) << out;
  ask.push_back("--json");
  ASSERT_EQ(run_burst(home, ask, &out, &err), 0) << err;
  auto j = nlohmann::json::parse(out);
  int queued = 0;
  for (const auto& g : j["gpus"]) {
    if (!g.contains("runs_at_once")) continue;
    ++queued;
    EXPECT_LT(g["runs_at_once"].get<long>(), 64) << g.dump();
    EXPECT_GT(g["seconds"].get<double>(), 0) << g.dump();
  }
  EXPECT_GT(queued, 0) << out;
}

}  // namespace
}  // namespace burst::testing
