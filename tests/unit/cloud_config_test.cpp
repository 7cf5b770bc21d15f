// Cloud driver settings in config.yaml: base URLs, keys from the environment by default, and a
// config file holding a key refused unless only its owner can read it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "burst/config.h"
#include "fakes/temp_dir.h"
#include "registry.h"

namespace burst {
namespace {

std::map<std::string, std::string> env_for(const TempDir& dir) {
  return {{"HOME", dir.path()},
          {"BURST_CONFIG_DIR", dir.path()},
          {"BURST_STATE_DIR", dir.path() + "/state"}};
}

TEST(CloudConfig, DefaultsToThePublicApisWithNoKey) {
  TempDir dir;
  auto c = load_config(env_for(dir), all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->clouds.at("runpod").base_url, "https://api.runpod.io");
  EXPECT_EQ(c->clouds.at("lambda").base_url, "https://cloud.lambda.ai");
  EXPECT_EQ(c->clouds.at("vast").base_url, "https://console.vast.ai");
  EXPECT_EQ(c->clouds.at("runpod").api_key, "");
  EXPECT_EQ(c->clouds.at("runpod").api_key_source, "");
}

TEST(CloudConfig, KeysComeFromTheProvidersOwnEnvironmentVariables) {
  TempDir dir;
  auto env = env_for(dir);
  env["RUNPOD_API_KEY"] = "rpa_env";
  env["LAMBDA_API_KEY"] = "lam_env";
  env["VAST_API_KEY"] = "vast_env";
  auto c = load_config(env, all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->clouds.at("runpod").api_key, "rpa_env");
  EXPECT_EQ(c->clouds.at("runpod").api_key_source, "RUNPOD_API_KEY");
  EXPECT_EQ(c->clouds.at("lambda").api_key, "lam_env");
  EXPECT_EQ(c->clouds.at("vast").api_key, "vast_env");
}

TEST(CloudConfig, ReadsBaseUrlTimeoutAndKeyFromAPrivateFile) {
  TempDir dir;
  dir.write("config.yaml",
            "providers:\n  runpod:\n    base_url: http://127.0.0.1:9/runpod/\n"
            "    api_key: rpa_file\n    timeout_seconds: 2\n");
  ::chmod((dir.path() + "/config.yaml").c_str(), 0600);
  auto c = load_config(env_for(dir), all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->clouds.at("runpod").base_url, "http://127.0.0.1:9/runpod");  // trailing / dropped
  EXPECT_EQ(c->clouds.at("runpod").api_key, "rpa_file");
  EXPECT_EQ(c->clouds.at("runpod").api_key_source, "config.yaml");
  EXPECT_EQ(c->clouds.at("runpod").timeout_seconds, 2);

  auto env = env_for(dir);
  env["RUNPOD_API_KEY"] = "rpa_env";
  auto c2 = load_config(env, all_provider_traits());
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->clouds.at("runpod").api_key, "rpa_env");  // the environment wins
}

TEST(CloudConfig, RefusesAKeyInAFileOthersCanReadSayingWhy) {
  TempDir dir;
  dir.write("config.yaml", "providers:\n  runpod:\n    api_key: rpa_file_secret\n");
  const std::string file = dir.path() + "/config.yaml";
  ::chmod(file.c_str(), 0644);
  auto c = load_config(env_for(dir), all_provider_traits());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(c.error().message,
            file +
                ": holds an API key (providers.runpod.api_key) but its mode is 0644, so other "
                "users can read it; run `chmod 600 " +
                file + "` or pass the key in the environment instead");
  EXPECT_EQ(c.error().message.find("rpa_file_secret"), std::string::npos);
}

TEST(CloudConfig, RefusesAWebhookUrlInAFileOthersCanRead) {
  TempDir dir;
  dir.write("config.yaml", "notify:\n  webhook: https://hooks.example/T0/B0/tok3n\n");
  const std::string file = dir.path() + "/config.yaml";
  ::chmod(file.c_str(), 0640);
  auto c = load_config(env_for(dir), all_provider_traits());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            file +
                ": holds a webhook URL (notify.webhook), whose token is a secret, but its mode is "
                "0640, so other users can read it; run `chmod 600 " +
                file + "` or pass the key in the environment instead");
  EXPECT_EQ(c.error().message.find("tok3n"), std::string::npos);
  ::chmod(file.c_str(), 0600);
  EXPECT_TRUE(load_config(env_for(dir), all_provider_traits()).ok());
}

TEST(CloudConfig, AFileWithoutAKeyNeedsNoSpecialMode) {
  TempDir dir;
  dir.write("config.yaml", "providers:\n  runpod:\n    base_url: http://127.0.0.1:9\n");
  ::chmod((dir.path() + "/config.yaml").c_str(), 0644);
  EXPECT_TRUE(load_config(env_for(dir), all_provider_traits()).ok());
}

TEST(CloudConfig, UnknownFieldIsNamed) {
  TempDir dir;
  dir.write("config.yaml", "providers:\n  runpod:\n    apikey: x\n");
  auto c = load_config(env_for(dir), all_provider_traits());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("providers.runpod.apikey: unknown field"), std::string::npos)
      << c.error().message;
}

}  // namespace
}  // namespace burst
