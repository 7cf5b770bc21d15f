// A spec's volume is found again (issue 17): two `burst run`s of the example on one emulated
// provider use one provider volume, and the second sees what the first wrote on it (the code
// sync's manifest, so it sends no file). Each run is a new burst process, so the store's mapping
// survives a restart; on Vast it is the only way back (the emulator's volume list carries no
// name, as the spec's Volume has none). Then `burst volumes` shows exactly that one volume with
// its storage cost, and `burst volumes delete` deletes it, verified with the provider.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

constexpr const char* kReuseKey = "volume_E2EKEY_must_never_be_seen_42";

struct ReuseCloud {
  const char* provider;
  const char* key_env;
};

// Names the parameter in test listings (ctest -N), where gtest would print its raw bytes.
void PrintTo(const ReuseCloud& c, std::ostream* os) { *os << c.provider; }

class VolumeReuse : public ::testing::TestWithParam<ReuseCloud> {};

int count_lines_with(const std::string& text, const std::string& needle) {
  int n = 0;
  size_t at = 0;
  while ((at = text.find(needle, at)) != std::string::npos) {
    ++n;
    at += needle.size();
  }
  return n;
}

TEST_P(VolumeReuse, SecondRunReusesTheVolumeAndVolumesListsAndDeletesIt) {
  const std::string p = GetParam().provider;
  if (p == "vast" && getuid() != 0)
    GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
  BurstHome home;
  const std::string spec = copy_tts_example(home);  // one denoising step: the volume is tested
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{p, kReuseKey}}}, clock,
                             {p});
  ASSERT_TRUE(cloud.start().ok());
  std::vector<std::string> extra;
  if (p == "lambda") extra.push_back(std::string("ssh_user: ") + getpwuid(getuid())->pw_name);
  write_provider_config(home, p, cloud.provider_url(p), extra);
  const std::map<std::string, std::string> env = {{GetParam().key_env, kReuseKey}};

  std::string out1, err1;
  ASSERT_EQ(run_burst(home, {"run", spec, "--provider", p, "--yes"}, &out1, &err1, env), 0)
      << out1 << err1;
  auto vols = cloud.state().volumes(p);
  ASSERT_EQ(vols.size(), 1u);
  const std::string id = vols[0].id;

  std::string out2, err2;
  ASSERT_EQ(run_burst(home, {"run", spec, "--provider", p, "--yes"}, &out2, &err2, env), 0)
      << out2 << err2;
  vols = cloud.state().volumes(p);
  ASSERT_EQ(vols.size(), 1u) << "the second run made a second volume:\n" << out2;
  EXPECT_EQ(vols[0].id, id);
  for (const auto& pod : cloud.state().all_pods())
    if (pod.gpu) {
      EXPECT_EQ(pod.volume_id, id) << pod.name;
    }
  // The first run's sync manifest is on the volume, so the second sends nothing.
  EXPECT_NE(out2.find("synced 0 of "), std::string::npos) << out2;
  EXPECT_EQ(out2.find("created empty"), std::string::npos) << out2;

  std::string lout, lerr;
  ASSERT_EQ(run_burst(home, {"volumes"}, &lout, &lerr, env), 0) << lout << lerr;
  // A table: a header, then one row per volume in aligned columns (cli/table.h).
  EXPECT_EQ(lout.rfind("PROVIDER  NAME       ID", 0), 0u) << lout;
  EXPECT_NE(lout.find("SIZE GB  $/MONTH\n"), std::string::npos) << lout;
  EXPECT_EQ(count_lines_with(lout, "  tts-cache  "), 1) << lout;
  EXPECT_NE(lout.find("\n" + p + std::string(10 - p.size(), ' ') + "tts-cache  " + id + "  "),
            std::string::npos)
      << lout;
  EXPECT_NE(lout.find("storage: $"), std::string::npos) << lout;

  std::string jout, jerr;
  ASSERT_EQ(run_burst(home, {"volumes", "--json"}, &jout, &jerr, env), 0) << jerr;
  auto j = nlohmann::json::parse(jout);
  ASSERT_EQ(j["volumes"].size(), 1u) << jout;
  EXPECT_EQ(j["volumes"][0]["id"], id);
  EXPECT_GT(j["volumes"][0]["usd_per_gb_month"].get<double>(), 0) << jout;

  std::string dout, derr;
  ASSERT_EQ(run_burst(home, {"volumes", "delete", "tts-cache", "--provider", p, "--yes"}, &dout,
                      &derr, env),
            0)
      << dout << derr;
  EXPECT_NE(dout.find("(verified gone)"), std::string::npos) << dout;
  EXPECT_TRUE(cloud.state().volumes(p).empty());
  ASSERT_EQ(run_burst(home, {"volumes"}, &lout, &lerr, env), 0) << lerr;
  EXPECT_NE(lout.find("no volumes of burst's"), std::string::npos) << lout;
  expect_key_nowhere(home, cloud, out1 + out2 + lout + jout + dout, err1 + err2 + derr, kReuseKey);
}

INSTANTIATE_TEST_SUITE_P(EachCloud, VolumeReuse,
                         ::testing::Values(ReuseCloud{"runpod", "RUNPOD_API_KEY"},
                                           ReuseCloud{"lambda", "LAMBDA_API_KEY"},
                                           ReuseCloud{"vast", "VAST_API_KEY"}),
                         [](const ::testing::TestParamInfo<ReuseCloud>& param_info) {
                           return std::string(param_info.param.provider);
                         });

}  // namespace
}  // namespace burst::testing
