// Every YAML file burst reads goes through the one field reader (src/yaml/yaml_fields.h), so a bad
// field in any of them is reported the same way: "file:line:col: field.path: message", every
// problem at once. One test per reader: config.yaml (the spec's and the catalog's are in
// spec_parser_test.cpp and catalog_test.cpp).
#include <gtest/gtest.h>

#include "burst/config.h"
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

}  // namespace
}  // namespace burst
