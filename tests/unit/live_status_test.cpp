// `burst run`'s live status line (cli/live_status.h): what it says while the run step runs, the
// progress lines a program prints to feed it, and a wide job's workers summed. It hears phase
// starts as typed facts (Console::phase_started), never from console text.
#include "cli/live_status.h"

#include <gtest/gtest.h>

namespace burst {
namespace {

TEST(LiveStatus, FormatsElapsedMoneyAndItems) {
  EXPECT_EQ(format_live_status(42.7, 0.0123, std::nullopt), "run 42s, ~$0.01 so far");
  EXPECT_EQ(format_live_status(65, 0.42, ItemsProgress{120, 1000}),
            "run 1m05s, ~$0.42 so far, 120/1000 items (12%)");
  EXPECT_EQ(format_live_status(3725, 12.5, ItemsProgress{3, 3}),
            "run 1h02m, ~$12.50 so far, 3/3 items (100%)");
  EXPECT_EQ(format_live_status(-1, -1, ItemsProgress{0, 7}),
            "run 0s, ~$0.00 so far, 0/7 items (0%)");
}

TEST(LiveStatus, ParsesProgressLinesAndNothingElse) {
  ASSERT_TRUE(parse_progress_line("BURST_PROGRESS 3/10"));
  EXPECT_EQ(parse_progress_line("BURST_PROGRESS 3/10")->done, 3);
  EXPECT_EQ(parse_progress_line("[w2] BURST_PROGRESS  4 / 9\r")->total, 9);
  for (const char* bad :
       {"BURST_PROGRESS", "BURST_PROGRESS 3", "BURST_PROGRESS 11/10", "BURST_PROGRESS 1/0",
        "BURST_PROGRESS -1/5", "BURST_PROGRESSX 1/2", "echo BURST_PROGRESS 1/2",
        "BURST_PROGRESS 1/2 extra", "[wx] BURST_PROGRESS 1/2"})
    EXPECT_FALSE(parse_progress_line(bad)) << bad;
}

TEST(LiveStatus, ShownOnlyDuringTheRunStepWithMoneySinceProvision) {
  LiveStatus s(3.6);  // $0.001 a second
  s.on_phase(std::nullopt, Phase::kProvision, 100);
  EXPECT_FALSE(s.render(110)) << "not in the run step yet";
  s.on_phase(std::nullopt, Phase::kRun, 130);
  EXPECT_EQ(s.render(160), "run 30s, ~$0.06 so far");
  EXPECT_FALSE(s.on_output("epoch 1"));
  EXPECT_TRUE(s.on_output("BURST_PROGRESS 5/20"));
  EXPECT_EQ(s.render(190), "run 1m00s, ~$0.09 so far, 5/20 items (25%)");
  s.on_phase(std::nullopt, Phase::kPull, 200);
  EXPECT_FALSE(s.render(201));
}

TEST(LiveStatus, AWideJobSumsItsWorkersAndRunsWhileAnyIsInItsRunStep) {
  LiveStatus s(0);
  s.on_phase(0, Phase::kProvision, 0);
  s.on_phase(1, Phase::kProvision, 0);
  s.on_phase(0, Phase::kRun, 10);
  s.on_phase(1, Phase::kRun, 12);
  EXPECT_TRUE(s.on_output("[w0] BURST_PROGRESS 10/50"));
  EXPECT_TRUE(s.on_output("[w1] BURST_PROGRESS 20/50"));
  EXPECT_TRUE(s.on_output("[w0] BURST_PROGRESS 30/50"));
  s.on_phase(0, Phase::kPull, 40);
  EXPECT_EQ(s.render(40), "run 30s, ~$0.00 so far, 50/100 items (50%)");
  s.on_phase(1, Phase::kPull, 41);
  EXPECT_FALSE(s.render(41));
}

// The billing clock and the run time start from the runner's typed phase starts only: a
// program's line that looks like the runner's "==> run" (or a worker's "[w1] ==> provision") is
// output, and starts neither.
TEST(LiveStatus, ALineThatLooksLikeAPhaseStartStartsNothing) {
  LiveStatus s(3.6);  // $0.001 a second
  EXPECT_FALSE(s.on_output("==> provision"));
  EXPECT_FALSE(s.on_output("==> run"));
  EXPECT_FALSE(s.on_output("[w1] ==> run"));
  EXPECT_FALSE(s.render(50)) << "no run step began";
  s.on_phase(std::nullopt, Phase::kRun, 100);
  EXPECT_FALSE(s.on_output("==> pull"));
  EXPECT_EQ(s.render(130), "run 30s, ~$0.03 so far") << "billed from the run step, not from 0";
}

}  // namespace
}  // namespace burst
