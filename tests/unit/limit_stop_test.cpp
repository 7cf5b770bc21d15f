// The time limits a job can be stopped by (issue 29, item 3): their words (util/limit_stop.h),
// read back as the report's typed fact, and config.yaml's no-progress limit (60 s unless set).
#include "util/limit_stop.h"

#include <gtest/gtest.h>

#include <fstream>

#include "burst/config.h"
#include "fakes/temp_dir.h"
#include "registry.h"

namespace burst {
namespace {

TEST(LimitStop, EveryFormBurstWritesIsReadBack) {
  EXPECT_EQ(limit_stop_reason(kLimitDeadline, 20), "stopped: budget.deadline (20 s) reached");
  auto d = find_limit_stop("sync: " + limit_stop_reason(kLimitDeadline, 20));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->limit, "budget.deadline");
  EXPECT_EQ(d->seconds, 20);
  auto m = find_limit_stop("pull: " + limit_stop_reason(kLimitMaxRuntime, 6));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->limit, "budget.max_runtime");
  EXPECT_EQ(m->seconds, 6);
  auto r = find_limit_stop("run: exceeded budget.max_runtime (30 s); stopped");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->limit, "budget.max_runtime");
  EXPECT_EQ(r->seconds, 30);
  auto n = find_limit_stop("sync: stopped: no bytes from the pod for 60 s (ssh 127.0.0.1:22)");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->limit, "no_progress_seconds");
  EXPECT_EQ(n->seconds, 60);
}

TEST(LimitStop, OtherErrorsAreNoLimit) {
  EXPECT_FALSE(find_limit_stop(""));
  EXPECT_FALSE(find_limit_stop("run: stopped: Ctrl-C or SIGTERM"));
  EXPECT_FALSE(find_limit_stop("run: exited with status 3"));
  EXPECT_FALSE(find_limit_stop("stopped: budget.deadline (soon) reached"));
  EXPECT_FALSE(find_limit_stop("run: stopped by budget: accrued $1 would cross cap $1"));
}

std::map<std::string, std::string> limit_env(const TempDir& dir) {
  return {{"HOME", dir.path()},
          {"BURST_CONFIG_DIR", dir.path()},
          {"BURST_STATE_DIR", dir.path() + "/state"}};
}

TEST(LimitStop, TheNoProgressLimitIs60SecondsUnlessConfigSetsIt) {
  TempDir dir;
  auto c = load_config(limit_env(dir), all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->no_progress_seconds, 60);
  std::ofstream(dir.path() + "/config.yaml") << "no_progress_seconds: 15\n";
  c = load_config(limit_env(dir), all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->no_progress_seconds, 15);
  std::ofstream(dir.path() + "/config.yaml") << "no_progress_seconds: 0\n";
  c = load_config(limit_env(dir), all_provider_traits());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("config.yaml:1:22: no_progress_seconds: must be at least 1"),
            std::string::npos)
      << c.error().message;
}

}  // namespace
}  // namespace burst
