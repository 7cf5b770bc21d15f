// burstd assembled in-process (no socket): an invalid pipeline stops the start with its
// file:line:col, SIGHUP's reload keeps the old pipelines when the new ones are bad and picks up
// new ones when they are good, and drain refuses new submits.
#include "daemon/daemon.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/temp_dir.h"

namespace burst::daemon {
namespace {

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    launcher_ = std::make_unique<FakeJobLauncher>(*store_);
    config_.pipelines_dir = dir_.path() + "/pipelines";
    config_.burst.reports_dir = dir_.path() + "/reports";
    config_.burst.logs_dir = dir_.path() + "/logs";
    std::filesystem::create_directories(config_.pipelines_dir);
  }
  std::unique_ptr<Daemon> make() {
    DaemonDeps deps{clock_, *store_, *launcher_,
                    {},     nullptr, [this](const std::string& l) { log_.push_back(l); }};
    return std::make_unique<Daemon>(config_, deps);
  }
  void write(const std::string& name, const std::string& yaml) {
    dir_.write("pipelines/" + name, yaml);
  }

  TempDir dir_;
  FakeClock clock_;
  DaemonConfig config_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
  std::vector<std::string> log_;
};

TEST_F(DaemonTest, InvalidCronStopsTheStartNamingFileLineAndField) {
  write("a.yaml", "name: a\nrun: echo\nschedule:\n  cron: \"0 0 * JUNE *\"\n");
  auto d = make();
  Status st = d->start(/*socket=*/false);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(st.error().message, config_.pipelines_dir +
                                    "/a.yaml:4:16: schedule.cron: month: unknown name \"JUNE\" "
                                    "(use JAN-DEC or 1-12)");
}

TEST_F(DaemonTest, ReloadKeepsThePipelinesOnErrorAndPicksUpNewOnes) {
  write("a.yaml", "name: a\nrun: echo\nschedule: {cron: \"@daily\"}\n");
  auto d = make();
  ASSERT_TRUE(d->start(false).ok());
  EXPECT_EQ(format_utc(*d->scheduler().next_fire("a")), "2026-01-02T00:00:00Z");

  write("b.yaml", "name: b\nrun: echo\nschedule: {cron: \"0 99 * * *\"}\n");
  EXPECT_FALSE(d->reload(config_).ok());
  EXPECT_TRUE(d->scheduler().next_fire("a").has_value()) << "kept";
  EXPECT_FALSE(d->scheduler().next_fire("b").has_value());

  write("b.yaml",
        "name: b\nrun: echo\nschedule: {cron: \"30 6 * * *\", timezone: Europe/London}\n");
  ASSERT_TRUE(d->reload(config_).ok());
  EXPECT_EQ(format_utc(*d->scheduler().next_fire("b")), "2026-01-01T06:30:00Z");
  d->stop();
}

TEST_F(DaemonTest, DrainRefusesNewSubmits) {
  auto d = make();
  ASSERT_TRUE(d->start(false).ok());
  d->drain();
  ApiResponse r = d->api().handle({"POST",
                                   "/v1/jobs",
                                   {},
                                   nlohmann::json{{"spec", "name: x\nrun: echo\n"}}.dump(),
                                   {{"content-type", "application/json"}}});
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"],
            "burstd is draining (shutting down); not queued");
  d->stop();
}

}  // namespace
}  // namespace burst::daemon
