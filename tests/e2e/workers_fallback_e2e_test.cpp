// Issue 19's workers across providers, end to end: `burst plan` and `burst run` on a spec that
// allows RunPod and Vast (both emulated in one burst-fakecloud), 2,000 items, max_workers: 4.
// At the emulator's prices the plan goes wide on Vast (RTX 4090 at $0.32/h against RunPod's
// $0.69/h) and lists RunPod among the fleet's fallbacks; the emulated Vast has capacity for 2
// pods of that GPU type (fakecloud Faults::capacity, learned only at create). The run creates 2
// pods on Vast and 2 on RunPod, each RunPod worker announced by one line before its create
// there; every item comes home once, every pod on both clouds is terminated by the emulator's
// own state, and the report's 4 worker rows name their providers. (The same with RunPod as the
// full one, in process: WorkerFleetTest.WorkersTheChosenProviderHasNoPodForRunOnTheFallback...)
//
// Your own hosts (issue 33 item 5) fall back the same way: E2EOwnHosts below runs `burst run` with
// two own hosts (real sshd on loopback, a fake nvidia-smi: tests/fakes/own_host_sshd.h) beside
// the emulated Vast.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "e2e/cloud_e2e.h"
#include "fakes/own_host_sshd.h"

namespace burst::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFallbackKey = "fleet_E2EKEY_must_never_be_seen_19";

std::string two_provider_spec() {
  return "version: 1\nname: e2e-fleet\nresources:\n  providers: [runpod, vast]\n"
         "  gpus: [RTX_4090]\n  max_usd_per_hour: 4.00\n  max_workers: 4\n"
         "volume: {name: e2e-fleet-vol, size_gb: 10, mount: /workspace}\n"
         "image: python:3.11-slim\ncode: {dir: app}\n"
         "workload:\n  kind: custom\n  items: 2000\n  items_file: items.txt\n"
         "  reference: {gpu: RTX_4090, runtime: 2000s}\nbudget: {deadline: 11m}\n"
         "run: |\n"
         // Each worker holds its pod a moment, so every create meets the others' live pods (the
         // emulator's capacity counts live pods; a tiny step could end before the last create).
         "  sleep 2\n"
         "  cp \"$BURST_ITEMS_FILE\" \"done-$BURST_WORKER_INDEX.txt\"\n"
         "artefacts:\n  - {remote: done-*.txt, local: ./got}\n";
}

TEST(E2EWorkersFallback, TwoPodsOnVastAndTwoOnRunpodWhenVastHasCapacityForTwo) {
  if (getuid() != 0)
    GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
  BurstHome home;
  SystemClock clock;
  std::string items;
  for (int i = 0; i < 2000; ++i) items += "item-" + std::to_string(i) + "\n";
  home.write("app/items.txt", items);
  fakecloud::FakeCloud cloud(
      fakecloud::EmulatorOptions{home.root() + "/fakecloud",
                                 Duration(0),
                                 {{"runpod", kFallbackKey}, {"vast", kFallbackKey}}},
      clock, std::vector<std::string>{"runpod", "vast"});
  ASSERT_TRUE(cloud.start().ok());
  std::filesystem::create_directories(home.root() + "/config");
  {
    std::ofstream f(home.root() + "/config/config.yaml");
    f << "providers:\n  runpod:\n    base_url: " << cloud.provider_url("runpod")
      << "\n  vast:\n    base_url: " << cloud.provider_url("vast") << "\n";
  }
  const std::map<std::string, std::string> env = {{"RUNPOD_API_KEY", kFallbackKey},
                                                  {"VAST_API_KEY", kFallbackKey}};
  const std::string spec = home.write("fleet.yaml", two_provider_spec());

  std::string plan_out, plan_err;
  ASSERT_EQ(run_burst(home, {"plan", spec}, &plan_out, &plan_err, env), 0) << plan_out << plan_err;
  ASSERT_NE(plan_out.find("GPU pod: vast RTX_4090"), std::string::npos) << plan_out;
  ASSERT_NE(plan_out.find("4 workers"), std::string::npos) << plan_out;
  const size_t fallback = plan_out.find("  fallback: a worker the chosen offer has no pod for");
  ASSERT_NE(fallback, std::string::npos) << plan_out;
  ASSERT_NE(plan_out.find("runpod RTX_4090", fallback), std::string::npos) << plan_out;

  std::string plan_json;  // the same list for scripts: burst plan --json
  ASSERT_EQ(run_burst(home, {"plan", spec, "--json"}, &plan_json, nullptr, env), 0) << plan_json;
  const json pj = json::parse(plan_json, nullptr, false);
  ASSERT_TRUE(pj.contains("fallbacks")) << plan_json;
  int runpod_fallbacks = 0;
  for (const auto& fb : pj["fallbacks"]) runpod_fallbacks += fb["provider"] == "runpod";
  EXPECT_GE(runpod_fallbacks, 1) << plan_json;

  fakecloud::Faults f;
  f.capacity = {{"RTX 4090", 2}};
  cloud.state().set_faults("vast", f);
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--yes"}, &out, &err, env), 0) << out << err;
  // The plan the run printed is the plan `burst plan` printed, fallback line included.
  EXPECT_NE(out.find(plan_out.substr(fallback, plan_out.find('\n', fallback) - fallback)),
            std::string::npos)
      << out;

  std::map<std::string, int> made;  // GPU pods by provider, by each emulator's own state
  for (const auto& pod : cloud.state().all_pods()) {
    made[pod.provider] += pod.gpu;
    EXPECT_EQ(pod.phase, fakecloud::Phase::kTerminated) << pod.provider << " " << pod.id;
  }
  for (const auto& pod : cloud.state().live_pods()) ADD_FAILURE() << pod.id << " still live";
  EXPECT_EQ(made["runpod"], 2) << out;
  EXPECT_EQ(made["vast"], 2) << out;

  // Each RunPod worker said what changed, why and what it costs, before its create there.
  int announced = 0;
  for (int w = 0; w < 4; ++w) {
    const std::string tag = "[w" + std::to_string(w) + "] ";
    const size_t said = out.find(tag + "vast has no RTX_4090 left (provider said: ");
    if (said == std::string::npos) continue;
    ++announced;
    const size_t created = out.find(tag + "gpu pod ");
    EXPECT_LT(said, created) << out;
    EXPECT_NE(out.find("; w" + std::to_string(w) + " runs on runpod RTX_4090", said),
              std::string::npos)
        << out;
  }
  EXPECT_EQ(announced, 2) << out;

  std::map<std::string, int> seen;
  for (const auto& file : files_under(home.work() + "/got")) {
    std::istringstream lines(read_file(file));
    for (std::string line; std::getline(lines, line);) ++seen[line];
  }
  EXPECT_EQ(seen.size(), 2000u);
  for (const auto& [item, n] : seen) EXPECT_EQ(n, 1) << item;

  std::string jobs;
  ASSERT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr, env), 0) << jobs;
  const json list = json::parse(jobs, nullptr, false);
  ASSERT_TRUE(list.is_array() && !list.empty()) << jobs;
  const std::string id = list[0]["id"];
  const json report =
      json::parse(read_file(home.state() + "/reports/" + id + ".json"), nullptr, false);
  ASSERT_TRUE(report.is_object());
  ASSERT_EQ(report["workers"].size(), 4u) << report.dump(2);
  std::map<std::string, int> rows;  // worker rows by the provider their pod names
  for (const auto& w : report["workers"]) {
    ASSERT_EQ(w["where"].size(), 1u) << w.dump();
    const std::string where = w["where"][0];
    rows[where.substr(0, where.find(' '))]++;
    EXPECT_EQ(where.rfind("runpod", 0) == 0, !w["deviation"].get<std::string>().empty())
        << w.dump();
  }
  EXPECT_EQ(rows["runpod"], 2) << report.dump(2);
  EXPECT_EQ(rows["vast"], 2) << report.dump(2);
  expect_key_nowhere(home, cloud, out, err, kFallbackKey);
}

// --- End to end: `burst run` with two own hosts and the emulated Vast
// -----------------------------

constexpr const char* kVastKey = "vast_OWNHOSTS_e2e_never_seen";

// Two own hosts with an RTX 4090 each at $0.02/h owned, Vast (emulated) beside them; "lab" is
// held by another job's lock from the start (a job of another burst: its name in the lock).
class E2EOwnHosts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_sshd().empty()) GTEST_SKIP() << "SKIPPED: no sshd (scripts/setup installs it)";
    if (getuid() != 0)
      GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
    key_ = home_.root() + "/hostkey/id_ed25519";
    fs::create_directories(home_.root() + "/hostkey");
    desk_ = std::make_unique<OwnHostSshd>(home_.root() + "/desk", key_,
                                          "NVIDIA GeForce RTX 4090, 24564 MiB\n");
    lab_ = std::make_unique<OwnHostSshd>(home_.root() + "/lab", key_,
                                         "NVIDIA GeForce RTX 4090, 24564 MiB\n");
    ASSERT_TRUE(desk_->start());
    ASSERT_TRUE(lab_->start());
    fs::create_directories(lab_->home() + "/.burst/lock");
    std::ofstream(lab_->home() + "/.burst/lock/pod") << "burst-i0123456789-other-gpu\n";
    cloud_ = std::make_unique<fakecloud::FakeCloud>(
        fakecloud::EmulatorOptions{home_.root() + "/fakecloud", Duration(0), {{"vast", kVastKey}}},
        clock_, std::vector<std::string>{"vast"});
    ASSERT_TRUE(cloud_->start().ok());
    fs::create_directories(home_.root() + "/config");
    std::ofstream(home_.root() + "/config/config.yaml")
        << "providers:\n  vast:\n    base_url: " << cloud_->provider_url("vast") << "\n"
        << "  ssh:\n    hosts:\n"
        << host_entry("desk", desk_->port()) << host_entry("lab", lab_->port());
  }

  std::string host_entry(const std::string& name, int port) {
    return "      - {name: " + name + ", address: 127.0.0.1, port: " + std::to_string(port) +
           ", user: root, key: " + key_ + ", usd_per_hour: 0.02}\n";
  }

  // Each pipeline its own file, name and volume (two jobs of one pipeline may not run at once).
  std::string spec(const std::string& run, const std::string& name = "e2e-own") {
    return home_.write(name + ".yaml", "version: 1\nname: " + name +
                                           "\nimage: python:3.11-slim\nvolume: {name: " + name +
                                           R"YAML(-vol}
resources: {gpus: [RTX_4090], providers: [ssh, vast]}
workload: {kind: custom, reference: {gpu: RTX_4090, runtime: 30s}}
run: )YAML" + run + "\n");
  }

  std::map<std::string, std::string> env() { return {{"VAST_API_KEY", kVastKey}}; }

  std::string desk_work() const { return desk_->home() + "/.burst"; }

  BurstHome home_;
  std::string key_;
  std::unique_ptr<OwnHostSshd> desk_, lab_;
  SystemClock clock_;
  std::unique_ptr<fakecloud::FakeCloud> cloud_;
};

size_t count_entries(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) ++n;
  return n;
}

TEST_F(E2EOwnHosts, AFreeOwnHostIsPreferredAndASecondJobBurstsToTheCloud) {
  std::string out, err;
  (void)run_burst(home_, {"check"}, &out, &err, env());  // the state dir is new
  EXPECT_NE(out.find("ssh: desk (root@127.0.0.1:" + std::to_string(desk_->port()) +
                     "): 1x RTX_4090 at $0.020/h owned, free"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("ssh: lab"), std::string::npos) << out;
  EXPECT_NE(out.find("busy (held by burst-i0123456789-other-gpu)"), std::string::npos) << out;

  const std::string path = spec("echo started-on-$BURST_VOLUME; sleep 6; echo first-done");
  BurstProcess first(home_, {"run", path, "--yes"}, env());
  ASSERT_TRUE(first.wait_for_stdout("started-on-", 120)) << first.out() << first.err();
  // The first job holds desk: its volume is a dir under desk's work dir, the lock names it.
  EXPECT_NE(first.out().find("started-on-" + desk_work() + "/volumes/e2e-own-vol"),
            std::string::npos)
      << first.out();
  EXPECT_EQ(count_entries(desk_work() + "/jobs"), 1u);
  EXPECT_TRUE(fs::exists(desk_work() + "/lock/pod"));
  EXPECT_TRUE(cloud_->state().all_pods().empty());

  // Both hosts are held now: the second job runs on Vast.
  const int rc =
      run_burst(home_, {"run", spec("echo second-ran", "e2e-two"), "--yes"}, &out, &err, env());
  EXPECT_EQ(rc, 0) << out << err;
  EXPECT_NE((out + err).find("second-ran"), std::string::npos) << out << err;
  EXPECT_EQ(cloud_->state().all_pods().size(), 1u) << out << err;
  EXPECT_TRUE(cloud_->state().live_pods().empty());

  EXPECT_EQ(first.wait(120), 0) << first.out() << first.err();
  EXPECT_NE(first.out().find("first-done"), std::string::npos) << first.out();
  // Every path out of a job releases the lock; the job's dir goes, its volume stays; the other
  // job's lock on lab is untouched.
  EXPECT_FALSE(fs::exists(desk_work() + "/lock"));
  EXPECT_EQ(count_entries(desk_work() + "/jobs"), 0u);
  EXPECT_TRUE(fs::is_directory(desk_work() + "/volumes/e2e-own-vol"));
  EXPECT_TRUE(fs::exists(lab_->home() + "/.burst/lock/pod"));
}

TEST_F(E2EOwnHosts, AHostThatDisappearsMidJobIsALostWorkerAndReapFreesItOnceItAnswers) {
  const std::string path = spec("echo started-on-own-host; sleep 60; echo never");
  BurstProcess job(home_, {"run", path, "--yes"}, env());
  ASSERT_TRUE(job.wait_for_stdout("started-on-own-host", 120)) << job.out() << job.err();
  ASSERT_TRUE(fs::exists(desk_work() + "/lock/pod"));
  desk_->stop();  // the host disappears: listener and sessions gone
  const int rc = job.wait(180);
  EXPECT_NE(rc, 0) << job.out() << job.err();
  EXPECT_NE(rc, -1) << "the job did not end:\n" << job.out() << job.err();
  EXPECT_EQ((job.out() + job.err()).find("never"), std::string::npos);
  EXPECT_TRUE(cloud_->state().live_pods().empty());
  // It could not release what it could not reach: the lock stays, recorded for `burst reap`.
  EXPECT_TRUE(fs::exists(desk_work() + "/lock/pod"));

  ASSERT_TRUE(desk_->start());
  std::string out, err;
  EXPECT_EQ(run_burst(home_, {"reap"}, &out, &err, env()), 0) << out << err;
  EXPECT_NE(out.find("deleted (confirmed)"), std::string::npos) << out << err;
  EXPECT_FALSE(fs::exists(desk_work() + "/lock"));
  EXPECT_EQ(count_entries(desk_work() + "/jobs"), 0u);
  EXPECT_TRUE(fs::is_directory(desk_work() + "/volumes/e2e-own-vol"));
}

// A wide job on your own hosts (issue 33: "a host that disappears mid-job is treated like a lost
// worker"): three free hosts, two workers, 40 items. The worker on desk holds it until desk
// disappears; its pod cannot be released, but an own host bills nothing while unreachable, so its
// whole shard runs again on the free host (what desk made never came home). The job succeeds,
// every item comes home exactly once, desk's lock stays for `burst reap`, and the report names
// desk's pod as lost mid-job. Nothing runs on the emulated cloud (the spec allows only ssh).
TEST_F(E2EOwnHosts, AnOwnHostLostMidWideJobIsALostWorkerItsShardRunsOnAFreeHost) {
  OwnHostSshd spare(home_.root() + "/spare", key_, "NVIDIA GeForce RTX 4090, 24564 MiB\n");
  ASSERT_TRUE(spare.start());
  fs::remove_all(lab_->home() + "/.burst/lock");  // lab is free for this job
  std::ofstream(home_.root() + "/config/config.yaml")
      << "providers:\n  vast:\n    base_url: " << cloud_->provider_url("vast") << "\n"
      << "  ssh:\n    hosts:\n"
      << host_entry("desk", desk_->port()) << host_entry("lab", lab_->port())
      << host_entry("spare", spare.port());
  std::string items;
  for (int i = 0; i < 40; ++i) items += "item-" + std::to_string(i) + "\n";
  home_.write("app/items.txt", items);
  const std::string path = home_.write("lost.yaml", R"YAML(version: 1
name: e2e-lost
image: python:3.11-slim
code: {dir: app}
volume: {name: e2e-lost-vol}
resources: {gpus: [RTX_4090], providers: [ssh], workers: 2}
workload: {kind: custom, items: 40, items_file: items.txt, reference: {gpu: RTX_4090, runtime: 30s}}
run: |
  cp "$BURST_ITEMS_FILE" "done-$BURST_WORKER_INDEX.txt"
  case "$BURST_VOLUME" in *"/desk/"*) echo "w$BURST_WORKER_INDEX holds desk"; sleep 120; echo never ;; esac
artefacts:
  - {remote: done-*.txt, local: ./got}
)YAML");
  BurstProcess job(home_, {"run", path, "--yes"}, env());
  ASSERT_TRUE(job.wait_for_stdout("holds desk", 120)) << job.out() << job.err();
  desk_->stop();  // the host disappears: listener and sessions gone
  const int rc = job.wait(240);
  ASSERT_NE(rc, -1) << "the job did not end:\n" << job.out() << job.err();
  EXPECT_EQ(rc, 0) << job.out() << job.err();
  const std::string said = job.out() + job.err();
  EXPECT_NE(said.find("lost its host ("), std::string::npos) << said;
  EXPECT_NE(said.find("bills nothing while unreachable"), std::string::npos) << said;
  EXPECT_EQ(said.find("never"), std::string::npos) << said;
  std::map<std::string, int> seen;
  for (const auto& f : files_under(home_.work() + "/got")) {
    std::istringstream lines(read_file(f));
    for (std::string line; std::getline(lines, line);) ++seen[line];
  }
  EXPECT_EQ(seen.size(), 40u) << said;
  for (const auto& [item, n] : seen) EXPECT_EQ(n, 1) << item;
  EXPECT_TRUE(fs::exists(desk_work() + "/lock/pod")) << "kept for `burst reap`";
  EXPECT_FALSE(fs::exists(lab_->home() + "/.burst/lock"));
  EXPECT_FALSE(fs::exists(spare.home() + "/.burst/lock"));
  EXPECT_TRUE(cloud_->state().all_pods().empty());
  std::string jobs;
  ASSERT_EQ(run_burst(home_, {"jobs", "--json"}, &jobs, nullptr, env()), 0) << jobs;
  const json list = json::parse(jobs, nullptr, false);
  ASSERT_TRUE(list.is_array() && !list.empty()) << jobs;
  const std::string id = list[0]["id"];
  const std::string md = read_file(home_.state() + "/reports/" + id + ".md");
  const size_t lost = md.find("Lost mid-job: `");
  ASSERT_NE(lost, std::string::npos) << md;
  EXPECT_NE(md.find("@desk`", lost), std::string::npos) << md;
}

}  // namespace
}  // namespace burst::testing
