// `burst run examples/tts-render.yaml --provider vast` against the Vast emulator: the real binary,
// a real HTTP API, real sshd instances. The base URL comes from config.yaml in the test's
// BURST_CONFIG_DIR and the key from VAST_API_KEY, as a user would set them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "burst/store.h"
#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

constexpr const char* kVastKey = "vast_E2EKEY_must_never_be_seen_42";

TEST(E2EVast, ExampleRunsOnEmulatedVastAndLeavesNoInstanceOrKeyBehind) {
  if (getuid() != 0)
    GTEST_SKIP() << "Vast instances are reached as root (the API has no user field), and the "
                    "emulator's loopback sshd only accepts its own user";
  BurstHome home;
  const std::string spec = copy_tts_example(home);
  SystemClock clock;
  fakecloud::FakeCloud cloud({home.root() + "/fakecloud", Duration(400), {{"vast", kVastKey}}},
                             clock, {"vast"});
  ASSERT_TRUE(cloud.start().ok());
  write_provider_config(home, "vast", cloud.provider_url("vast"));
  // Every host bills its traffic, as many Vast hosts do (each offer's inet_down_cost and
  // inet_up_cost, $/GB; REFERENCE §4.2).
  fakecloud::Faults bills;
  bills.inet_down_cost = 0.02;
  bills.inet_up_cost = 0.01;
  cloud.state().set_faults("vast", bills);

  std::string out, err;
  const int rc = run_burst(home, {"run", spec, "--provider", "vast", "--yes"}, &out, &err,
                           {{"VAST_API_KEY", kVastKey}});
  ASSERT_EQ(rc, 0) << out << err;

  // One GPU instance (Vast has no CPU pods), labelled with our tag, on the volume's machine,
  // reached with the key burst registered on the account.
  const std::string pub = read_file(home.root() + "/config/id_ed25519.pub");
  auto pods = cloud.state().all_pods();
  ASSERT_EQ(pods.size(), 1u) << out;
  const auto& pod = pods[0];
  EXPECT_TRUE(pod.gpu);
  auto store = open_sqlite_store(home.state() + "/burst.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  EXPECT_EQ(pod.name.rfind("burst-i" + *(*store)->installation_id() + "-", 0), 0u)
      << "the label carries this installation's id: " << pod.name;
  auto vols = cloud.state().volumes("vast");
  ASSERT_EQ(vols.size(), 1u);
  EXPECT_EQ(vols[0].name, "tts_dcache") << "tts-cache in Vast's volume-name alphabet";
  EXPECT_EQ(pod.volume_id, vols[0].id);
  EXPECT_EQ(pod.region, vols[0].region) << "instance and volume on one machine";
  EXPECT_EQ(pod.mount_path, "/workspace");
  // A Vast volume lives on one machine: the user is told this one is new and empty (cold).
  EXPECT_NE(out.find("volume tts-cache: created empty on machine " + vols[0].region),
            std::string::npos)
      << out;
  EXPECT_EQ(pod.public_key + "\n", pub);
  // Vast's SSH runtype gives any image (python:3.11-slim has no sshd) its SSH server.
  EXPECT_TRUE(pod.sshd);
  EXPECT_EQ(pod.extra.value("runtype", ""), "ssh_direct") << pod.extra.dump();
  EXPECT_EQ(pod.phase, fakecloud::Phase::kTerminated);
  EXPECT_NE(out.find(pod.id + " deleted (confirmed)"), std::string::npos) << out;
  EXPECT_TRUE(cloud.state().live_pods().empty());

  // Destroy was verified with the provider: a read after the DELETE showed it gone.
  bool destroyed = false, verified = false;
  for (const auto& e : cloud.state().request_log()) {
    if (e.method == "DELETE" && e.path == "/vast/api/v0/instances/" + pod.id + "/" &&
        e.status == 200)
      destroyed = true;
    if (destroyed && e.method == "GET" &&
        e.path.rfind("/vast/api/v0/instances/" + pod.id + "/", 0) == 0)
      verified = true;
  }
  EXPECT_TRUE(destroyed);
  EXPECT_TRUE(verified);

  // The artefacts came home and the upload ran where the hand-off choice put it.
  auto manifest = nlohmann::json::parse(read_file(home.work() + "/tts-output/manifest.json"));
  EXPECT_EQ(manifest["clip_count"], kExampleQuestionsInTests);
  EXPECT_EQ(read_file(home.work() + "/tts-output/render.wav").substr(0, 4), "RIFF");
  EXPECT_NE(out.find("hand-off: "), std::string::npos) << out;
  EXPECT_NE(out.find("upload ok"), std::string::npos) << out;

  EXPECT_GE(files_under(home.state() + "/reports").size(), 2u);
  // The host's per-GB charge reached the plan and the report, as estimated, apart from the pods.
  EXPECT_NE(out.find("transfer: the host bills downloads at $0.020/GB"), std::string::npos) << out;
  std::string report_md;
  for (const std::string& f : files_under(home.state() + "/reports"))
    if (f.size() > 3 && f.compare(f.size() - 3, 3, ".md") == 0) report_md += read_file(f);
  EXPECT_NE(report_md.find("| transfer, billed per GB by the host | $"), std::string::npos)
      << report_md;
  // The artefacts pulled out of the host, priced at its $0.01/GB now their size is known.
  EXPECT_NE(report_md.find("| artefacts pulled, billed per GB by the host | not priced | $"),
            std::string::npos)
      << report_md;
  expect_key_nowhere(home, cloud, out, err, kVastKey);
}

}  // namespace
}  // namespace burst::testing
