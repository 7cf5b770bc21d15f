// Every YAML file burst reads goes through the one field reader (src/yaml/yaml_fields.h), so a bad
// field in any of them is reported the same way: "file:line:col: field.path: message", every
// problem at once. One test per reader: config.yaml, burstd.yaml (the spec's and the catalog's
// are in spec_parser_test.cpp and catalog_test.cpp).
#include <gtest/gtest.h>

#include "burst/config.h"
#include "client/daemon_config.h"
#include "fakes/temp_dir.h"
#include "registry.h"

namespace burst {
namespace {

TEST(YamlReaders, ABadFieldInConfigYamlNamesFileLineColumnAndField) {
  TempDir dir;
  dir.write("config.yaml",
            "ssh_wait_seconds: soon\n"
            "providers:\n"
            "  runpod:\n"
            "    timeout_seconds: -3\n"
            "    apikey: x\n"
            "notify:\n"
            "  pipelines: [a]\n");
  auto c = load_config({{"HOME", dir.path()},
                        {"BURST_CONFIG_DIR", dir.path()},
                        {"BURST_STATE_DIR", dir.path() + "/state"}},
                       all_provider_traits());
  ASSERT_FALSE(c.ok());
  const std::string file = dir.path() + "/config.yaml";
  EXPECT_EQ(c.error().message,
            file + ":1:19: ssh_wait_seconds: expected a number, got \"soon\"\n" + file +
                ":4:22: providers.runpod.timeout_seconds: must not be negative, got -3\n" + file +
                ":5:5: providers.runpod.apikey: unknown field (did you mean \"api_key\"?)\n" +
                file + ":7:14: notify.pipelines: expected a mapping of pipeline: URL");
}

TEST(YamlReaders, AnEmptyConfigYamlIsAllDefaults) {
  TempDir dir;
  dir.write("config.yaml", "# nothing set\n");
  auto c =
      load_config({{"HOME", dir.path()}, {"BURST_CONFIG_DIR", dir.path()}}, all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->ssh_key, dir.path() + "/id_ed25519");
}

TEST(YamlReaders, ABadFieldInBurstdYamlNamesFileLineColumnAndField) {
  TempDir dir;
  dir.write("burstd.yaml",
            "log_files: 0\n"
            "budget:\n"
            "  usd_per_week: 3\n"
            "orphan_grace: soon\n"
            "pipelines: job.yaml\n"
            "drain_timeout: 0s\n");
  auto c = daemon::load_daemon_config(dir.path() + "/burstd.yaml",
                                      {{"HOME", dir.path()},
                                       {"BURST_CONFIG_DIR", dir.path() + "/config"},
                                       {"BURST_STATE_DIR", dir.path() + "/state"}});
  ASSERT_FALSE(c.ok());
  const std::string file = dir.path() + "/burstd.yaml";
  EXPECT_EQ(c.error().message,
            file + ":1:12: log_files: must be at least 1, got 0\n" + file +
                ":3:3: budget.usd_per_week: unknown field (usd_per_day, usd_per_month, "
                "team_usd_per_day, team_usd_per_month, user_usd_per_day, user_usd_per_month)\n" +
                file +
                ":4:15: orphan_grace: expected a duration like \"90s\", \"30m\" or \"2h\", got "
                "\"soon\"\n" +
                file + ":5:12: pipelines: expected a list of spec files, got a string");
}

TEST(YamlReaders, BurstdYamlReadsItsFields) {
  TempDir dir;
  dir.write("burstd.yaml",
            "max_concurrent_jobs: 4\n"
            "pipelines: [jobs/a.yaml]\n"
            "budget: {usd_per_day: 0, usd_per_month: 12.5}\n"
            "orphan_grace: 0s\n"
            "drain_timeout: 90\n");
  auto c = daemon::load_daemon_config(dir.path() + "/burstd.yaml",
                                      {{"HOME", dir.path()},
                                       {"BURST_CONFIG_DIR", dir.path() + "/config"},
                                       {"BURST_STATE_DIR", dir.path() + "/state"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->max_concurrent, 4);
  ASSERT_EQ(c->pipelines.size(), 1u);
  EXPECT_EQ(c->pipelines[0], dir.path() + "/jobs/a.yaml");
  EXPECT_EQ(c->usd_per_day, 0.0);
  EXPECT_EQ(c->usd_per_month, 12.5);
  EXPECT_EQ(c->orphan_grace, Duration::zero());
  EXPECT_EQ(c->drain_timeout, std::chrono::seconds(90));
}

// The example shipped in config/ reads under the field reader's rules (integers, durations).
TEST(YamlReaders, TheShippedBurstdYamlLoads) {
  TempDir dir;
  auto c = daemon::load_daemon_config(std::string(BURST_SOURCE_DIR) + "/config/burstd.yaml",
                                      {{"HOME", dir.path()},
                                       {"BURST_CONFIG_DIR", dir.path() + "/config"},
                                       {"BURST_STATE_DIR", dir.path() + "/state"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->log_max_mb, 10);
  EXPECT_EQ(c->orphan_grace, std::chrono::minutes(10));
  EXPECT_EQ(c->drain_timeout, std::chrono::minutes(30));
}

}  // namespace
}  // namespace burst
