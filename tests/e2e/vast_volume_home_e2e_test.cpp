// No silent second volume (issue 32): three `burst run`s on emulated Vast, whose machines reprice
// between runs (Faults::usd_per_gpu; Vast's offers are "dynamic"). A Vast volume lives on one
// machine, so following the cheapest machine would rent a new volume each time it changes. The
// second run, whose cheapest machine is now another one but less than 15% cheaper, stays where
// the volume is and says so; the third, where another machine is far cheaper, says before
// anything is created that a new volume will be made there, its size and its monthly cost.
#include <gtest/gtest.h>
#include <unistd.h>

#include "e2e/burst_harness.h"
#include "e2e/cloud_e2e.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {
namespace {

constexpr const char* kHomeKey = "vast_HOMEKEY_e2e_never_seen";

TEST(E2EVastVolumeHome, APriceMoveDoesNotMakeASecondVolumeSilently) {
  if (getuid() != 0)
    GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
  BurstHome home;
  const std::string spec = home.write("home.yaml", R"YAML(version: 1
name: e2e-home
image: python:3.11-slim
volume: {name: e2e-home-vol, size_gb: 50}
resources: {gpus: [RTX_4090]}
workload: {kind: custom, reference: {gpu: RTX_4090, runtime: 30s}}
run: echo home-run
)YAML");
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(0), {{"vast", kHomeKey}}}, clock,
                             {"vast"});
  ASSERT_TRUE(cloud.start().ok());
  write_provider_config(home, "vast", cloud.provider_url("vast"));
  auto run = [&](std::string* out) {
    std::string err;
    const int rc = run_burst(home, {"run", spec, "--provider", "vast", "--yes"}, out, &err,
                             {{"VAST_API_KEY", kHomeKey}});
    *out += err;
    // The plan block wraps at 120 columns (continuations indented): read it unwrapped.
    for (size_t at; (at = out->find("\n           ")) != std::string::npos;)
      out->replace(at, 12, " ");
    return rc;
  };
  auto reprice = [&](double usd) {
    fakecloud::Faults f;
    f.usd_per_gpu[41201] = usd;  // Washington's RTX 4090s; Quebec's (41202) stay at $0.31
    cloud.state().set_faults("vast", f);
  };

  std::string out1;
  ASSERT_EQ(run(&out1), 0) << out1;  // Quebec is the cheapest: the volume is made there
  ASSERT_EQ(cloud.state().volumes("vast").size(), 1u) << out1;
  EXPECT_EQ(cloud.state().volumes("vast")[0].region, "41202");
  EXPECT_NE(out1.find("new volume: e2e-home-vol will be created on vast in Quebec, CA (machine "
                      "41202), 50 GB, $7.50/month while it exists"),
            std::string::npos)
      << out1;

  reprice(0.29);  // Washington is now the cheapest, by less than 15%
  std::string out2;
  ASSERT_EQ(run(&out2), 0) << out2;
  EXPECT_EQ(cloud.state().volumes("vast").size(), 1u) << "a second volume:\n" << out2;
  EXPECT_NE(out2.find("volume home: e2e-home-vol is on vast in Quebec, CA (machine 41202) already "
                      "(50 GB, $7.50/month); no new volume; chosen over vast in Washington, US "
                      "(machine 41201)"),
            std::string::npos)
      << out2;
  for (const auto& p : cloud.state().all_pods()) EXPECT_EQ(p.region, "41202") << p.id;

  reprice(0.15);  // Washington at half the price: worth a new volume, said before any create
  std::string out3;
  ASSERT_EQ(run(&out3), 0) << out3;
  const size_t said = out3.find(
      "new volume: e2e-home-vol will be created on vast in Washington, US (machine 41201), 50 GB, "
      "$7.50/month while it exists; it starts empty; e2e-home-vol on vast in Quebec, CA (machine "
      "41202) is kept and not used by this run");
  ASSERT_NE(said, std::string::npos) << out3;
  EXPECT_LT(said, out3.find("gpu pod ")) << out3;
  EXPECT_EQ(cloud.state().volumes("vast").size(), 2u) << out3;
  EXPECT_TRUE(cloud.state().live_pods().empty());
}

}  // namespace
}  // namespace burst::testing
