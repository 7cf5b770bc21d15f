// `burst check` and the credential rules of `offers`, `plan` and `run`, against the three
// emulated clouds: the real binary, keys from the environment, base URLs from config.yaml.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

const std::map<std::string, std::string> kKeys = {{"runpod", "rpa_CHECKE2E_never_seen_1"},
                                                  {"lambda", "secret_CHECKE2E_never_seen_2"},
                                                  {"vast", "vast_CHECKE2E_never_seen_3"}};
const char* const kPublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBurstCheckE2E burst@test";

// The emulator's clock, `offset` away from the real one (a provider whose Date header is off).
class OffsetClock : public SystemClock {
 public:
  explicit OffsetClock(Duration offset) : offset_(offset) {}
  TimePoint now() const override { return std::chrono::system_clock::now() + offset_; }

 private:
  Duration offset_;
};

class E2ECheck : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cloud_.start().ok());
    std::filesystem::create_directories(config_dir());
    write_config("");
    // burst's key pair as `burst run` leaves it, and a private state dir.
    write_file(key_path(), "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n", 0600);
    write_file(key_path() + ".pub", std::string(kPublicKey) + "\n", 0644);
    std::filesystem::create_directories(home_.state());
    ::chmod(home_.state().c_str(), 0700);
  }

  std::string config_dir() const { return home_.root() + "/config"; }
  std::string key_path() const { return config_dir() + "/id_ed25519"; }

  void write_config(const std::string& extra) {
    std::ofstream f(config_dir() + "/config.yaml");
    f << extra << "providers:\n";
    for (const auto& [p, key] : kKeys)
      f << "  " << p << ":\n    base_url: " << cloud_.provider_url(p) << "\n";
  }

  static void write_file(const std::string& path, const std::string& text, mode_t mode) {
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
  }

  // The env with the keys of `providers`; `wrong` gets a key the emulator refuses.
  static std::map<std::string, std::string> keys(const std::vector<std::string>& providers,
                                                 const std::string& wrong = "") {
    std::map<std::string, std::string> env;
    for (const auto& p : providers) {
      std::string var = p;
      for (auto& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      env[var + "_API_KEY"] = p == wrong ? "wrong_key_for_" + p : kKeys.at(p);
    }
    return env;
  }

  // The line of `out` that starts with `verdict` and holds `needle`, or "".
  static std::string line_with(const std::string& out, const std::string& verdict,
                               const std::string& needle) {
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(verdict + " ", 0) == 0 && line.find(needle) != std::string::npos) return line;
    return "";
  }

  BurstHome home_;
  SystemClock clock_;
  fakecloud::FakeCloud cloud_{{home_.root() + "/fakecloud", Duration(0), kKeys}, clock_};
};

const std::vector<std::string> kAll = {"runpod", "lambda", "vast"};

TEST_F(E2ECheck, AllPassAgainstTheThreeClouds) {
  cloud_.state().add_account_key("vast", kPublicKey);
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"check"}, &out, &err, keys(kAll)), 0) << out << err;
  for (const auto& p : kAll)
    EXPECT_NE(line_with(out, "ok", p + ": API key from " + keys({p}).begin()->first + " accepted"),
              "")
        << p << "\n"
        << out;
  EXPECT_NE(line_with(out, "ok", "vast: burst's SSH key is registered"), "") << out;
  EXPECT_NE(line_with(out, "warn", "lambda: burst's SSH key is not registered on the account yet"),
            "")
      << out;
  EXPECT_NE(line_with(out, "ok", "vast: balance $25.00"), "") << out;
  EXPECT_NE(line_with(out, "skipped", "lambda: not checkable (the API does not expose"), "") << out;
  EXPECT_NE(line_with(out, "ok", "clock within 60 s"), "") << out;
  EXPECT_NE(line_with(out, "ok", key_path() + " (mode 0600)"), "") << out;
  EXPECT_NE(line_with(out, "ok", home_.state() + " (private, mode 0700, writable)"), "") << out;
  EXPECT_EQ(line_with(out, "FAIL", ""), "") << out;
  EXPECT_NE(out.find("all checks passed"), std::string::npos) << out;
  for (const auto& [p, key] : kKeys) expect_key_nowhere(home_, cloud_, out, err, key);
}

TEST_F(E2ECheck, JsonListsEveryCheck) {
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"check", "--json", "--provider", "vast"}, &out, &err, keys(kAll)), 0)
      << out << err;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["ok"], true);
  std::set<std::string> names;
  for (const auto& c : j["checks"]) names.insert(c["check"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"ssh key", "state dir", "api key", "ssh key registered",
                                          "balance", "clock"}));
}

TEST_F(E2ECheck, WrongKeyFailsNamingTheProviderAndTheFix) {
  for (const auto& p : kAll) {
    std::string out, err;
    EXPECT_EQ(run_burst(home_, {"check", "--provider", p}, &out, &err, keys(kAll, p)), 3)
        << p << out << err;
    const std::string line =
        line_with(out, "FAIL", p + ": the API key from " + keys({p}).begin()->first);
    EXPECT_NE(line, "") << out;
    EXPECT_NE(line.find("was refused"), std::string::npos) << line;
    EXPECT_NE(out.find("to a valid key"), std::string::npos) << out;
  }
}

TEST_F(E2ECheck, NoKeyForAProviderAskedForFails) {
  std::string out, err;
  EXPECT_EQ(run_burst(home_, {"check", "--provider", "runpod"}, &out, &err, {}), 3) << out << err;
  EXPECT_NE(line_with(out, "FAIL", "runpod: no API key is configured"), "") << out;
  EXPECT_NE(out.find("set RUNPOD_API_KEY"), std::string::npos) << out;
}

TEST_F(E2ECheck, MissingSshKeyFileFails) {
  write_config("ssh_key: " + home_.root() + "/nowhere/id_ed25519\n");
  std::string out, err;
  EXPECT_EQ(run_burst(home_, {"check", "--provider", "vast"}, &out, &err, keys(kAll)), 3)
      << out << err;
  EXPECT_NE(line_with(out, "FAIL", "nowhere/id_ed25519 set in config.yaml does not exist"), "")
      << out;
}

TEST_F(E2ECheck, MissingPublicKeyFails) {
  std::filesystem::remove(key_path() + ".pub");
  std::string out, err;
  EXPECT_EQ(run_burst(home_, {"check", "--provider", "vast"}, &out, &err, keys(kAll)), 3)
      << out << err;
  EXPECT_NE(line_with(out, "FAIL", "id_ed25519.pub is missing"), "") << out;
}

TEST_F(E2ECheck, KeyReadableByOthersFails) {
  ::chmod(key_path().c_str(), 0644);
  std::string out, err;
  EXPECT_EQ(run_burst(home_, {"check", "--provider", "vast"}, &out, &err, keys(kAll)), 3)
      << out << err;
  EXPECT_NE(line_with(out, "FAIL", "has mode 0644"), "") << out;
  EXPECT_NE(out.find("chmod 600 " + key_path()), std::string::npos) << out;
}

TEST_F(E2ECheck, StateDirNotPrivateFails) {
  ::chmod(home_.state().c_str(), 0755);
  std::string out, err;
  EXPECT_EQ(run_burst(home_, {"check", "--provider", "vast"}, &out, &err, keys(kAll)), 3)
      << out << err;
  EXPECT_NE(line_with(out, "FAIL", home_.state() + " has mode 0755"), "") << out;
  EXPECT_NE(out.find("chmod 700 " + home_.state()), std::string::npos) << out;
}

TEST(E2ECheckClock, ClockSkewAgainstTheProvidersDateHeaderWarns) {
  BurstHome home;
  OffsetClock skewed(std::chrono::minutes(5));  // the provider is 5 minutes ahead
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), kKeys}, skewed, {"vast"});
  ASSERT_TRUE(cloud.start().ok());
  std::filesystem::create_directories(home.root() + "/config");
  std::ofstream(home.root() + "/config/config.yaml")
      << "providers:\n  vast:\n    base_url: " << cloud.provider_url("vast") << "\n";
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"check", "--provider", "vast"}, &out, &err,
                      {{"VAST_API_KEY", kKeys.at("vast")}}),
            0)
      << out << err;
  // About -300 s: the Date header has whole seconds, so -299 or -300.
  const size_t at = out.find("this machine's clock is off by -");
  ASSERT_NE(at, std::string::npos) << out;
  const int skew =
      std::atoi(out.c_str() + at + std::string("this machine's clock is off by ").size());
  EXPECT_GE(skew, -302) << out;
  EXPECT_LE(skew, -298) << out;
  EXPECT_NE(out.find("warn "), std::string::npos) << out;
  EXPECT_NE(out.find("against vast's Date header"), std::string::npos) << out;
}

TEST_F(E2ECheck, SpecVolumeRegionWithoutAnAllowedGpuFails) {
  // A Lambda file system in us-east-1; the spec allows only a GPU Lambda does not offer there.
  ASSERT_TRUE(cloud_.state()
                  .create_volume("lambda", "tts-cache", "us-east-1", 50, "fs0000000000000000000001")
                  .ok());
  const std::string spec = copy_tts_example(home_);
  std::string text = read_file(spec);
  text.replace(text.find("providers: [local]"), 18, "providers: [lambda]");
  text.replace(text.find("gpus: [RTX_4090, RTX_5090, L4, A10G, A10]"), 41, "gpus: [RTX_4090]");
  std::ofstream(spec) << text;
  std::string out, err;
  EXPECT_EQ(run_burst(home_, {"check", spec}, &out, &err, keys(kAll)), 1) << out << err;
  EXPECT_NE(line_with(out, "FAIL", "volume tts-cache is in us-east-1, where no GPU the spec"), "")
      << out;
}

// Wrong key: offers, plan and run stop with exit 3, name the provider and say what to do, and
// nothing is priced from the offline table as if all were well.
TEST_F(E2ECheck, WrongKeyMakesOffersPlanAndRunExit3) {
  const std::string spec = copy_tts_example(home_);
  for (const auto& p : kAll) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"offers"},
          std::vector<std::string>{"plan", spec, "--provider", p},
          std::vector<std::string>{"run", spec, "--provider", p, "--yes"}}) {
      std::string out, err;
      EXPECT_EQ(run_burst(home_, args, &out, &err, keys(kAll, p)), 3) << p << " " << args[0] << "\n"
                                                                      << out << err;
      EXPECT_NE(err.find("burst: " + p + ": the API key was refused (HTTP 40"), std::string::npos)
          << args[0] << ": " << err;
      EXPECT_NE(err.find("`burst check`"), std::string::npos) << err;
      EXPECT_EQ(out.find("offline"), std::string::npos) << out;
    }
  }
  EXPECT_TRUE(cloud_.state().pods("runpod").empty());
}

TEST_F(E2ECheck, NoKeyPricesFromTheTableAndSaysSo) {
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"offers", "--provider", "runpod"}, &out, &err, {}), 0) << out << err;
  EXPECT_NE(out.find("offline prices from config/prices.yaml (dated "), std::string::npos) << out;
  EXPECT_NE(out.find("): no API key for runpod"), std::string::npos) << out;
  ASSERT_EQ(run_burst(home_, {"offers", "--json", "--provider", "runpod"}, &out, &err, {}), 0)
      << out << err;
  const std::string note = nlohmann::json::parse(out)["offline_note"].get<std::string>();
  EXPECT_EQ(note.rfind("offline prices from config/prices.yaml (dated ", 0), 0u) << note;
  EXPECT_NE(note.find("): no API key for runpod"), std::string::npos) << note;
  const std::string spec = copy_tts_example(home_);
  EXPECT_NE(run_burst(home_, {"plan", spec, "--provider", "runpod"}, &out, &err, {}), 3)
      << out << err;
  EXPECT_NE(out.find("): no API key for runpod"), std::string::npos) << out;
}

TEST_F(E2ECheck, NoKeyRunSaysNoKeyIsConfigured) {
  const std::string spec = copy_tts_example(home_);
  std::string out, err;
  EXPECT_EQ(run_burst(home_, {"run", spec, "--provider", "runpod", "--yes"}, &out, &err, {}), 3)
      << out << err;
  EXPECT_NE(err.find("runpod: no API key is configured; set RUNPOD_API_KEY"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("no offer satisfies"), std::string::npos) << err;
}

}  // namespace
}  // namespace burst::testing
