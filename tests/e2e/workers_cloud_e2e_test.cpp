// `burst run` going wide on each emulated cloud (issue 19's acceptance; job/worker_fleet.h): the
// real binaries against burst-fakecloud served in-process. A spec of 2,000 items with a tight
// deadline and resources.max_workers: 4 plans four workers; the run creates four GPU pods, each
// processes its contiguous shard (the artefacts hold every item exactly once), every pod is
// deleted and the provider's own state shows none left, and the report has four worker rows and
// the curve's chosen point (on Vast, whose volumes live on one machine, the workers beyond the
// volume's machine's free GPUs each on a volume of their own: job/volume_binding.h). Then, on
// RunPod, a worker whose pod the provider loses mid-run with worker_retries: 0: the job fails and
// no pod is left. (With a retry the job succeeds: the chaos cell runpod.worker-lost.mid-run.) The
// local cloud's case is workers_e2e_test.cpp.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

using nlohmann::json;

constexpr const char* kWideKey = "wide_E2EKEY_must_never_be_seen_19";

// The GPU and deadline for which the emulator's offers plan exactly 4 workers (3 would miss it;
// Lambda's cold start is longer): `burst plan` prints the curve.
struct WideCloud {
  const char* provider;
  const char* key_env;
  const char* gpu;
  const char* deadline;
};

const WideCloud kWideClouds[] = {{"runpod", "RUNPOD_API_KEY", "RTX_4090", "11m"},
                                 {"lambda", "LAMBDA_API_KEY", "A10", "12m"},
                                 {"vast", "VAST_API_KEY", "RTX_4090", "11m"}};

std::string wide_spec(const WideCloud& c, const std::string& extra_resources,
                      const std::string& run_prefix) {
  const std::string gpu = c.gpu;
  return "version: 1\nname: e2e-wide\nresources:\n  providers: [" + std::string(c.provider) +
         "]\n  gpus: [" + gpu + "]\n  max_usd_per_hour: 4.00\n  max_workers: 4\n" +
         extra_resources +
         "volume: {name: e2e-wide-vol, size_gb: 10, mount: /workspace}\n"
         "image: python:3.11-slim\ncode: {dir: app}\n"
         "workload:\n  kind: custom\n  items: 2000\n  items_file: items.txt\n"
         "  reference: {gpu: " +
         gpu + ", runtime: 2000s}\nbudget: {deadline: " + c.deadline +
         "}\n"
         "run: |\n" +
         run_prefix +
         // Each worker holds its pod a moment, so the last create still finds the machine's GPUs
         // taken (the placement the test checks), however fast the others' steps are.
         "  sleep 2\n"
         "  cp \"$BURST_ITEMS_FILE\" \"done-$BURST_WORKER_INDEX.txt\"\n"
         "  echo \"worker $BURST_WORKER_INDEX of $BURST_WORKER_COUNT: $(wc -l < "
         "\"$BURST_ITEMS_FILE\") items\"\n"
         "artefacts:\n  - {remote: done-*.txt, local: ./got}\n";
}

// Names the parameter in test listings (ctest -N) by its provider, not its raw bytes.
void PrintTo(const WideCloud& c, std::ostream* os) { *os << c.provider; }

class E2EWorkersCloud : public ::testing::TestWithParam<WideCloud> {
 protected:
  void SetUp() override {
    p_ = GetParam().provider;
    if (p_ == "vast" && getuid() != 0)
      GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
    std::string items;
    for (int i = 0; i < 2000; ++i) items += "item-" + std::to_string(i) + "\n";
    home_.write("app/items.txt", items);
    cloud_ = std::make_unique<fakecloud::FakeCloud>(
        fakecloud::EmulatorOptions{home_.root() + "/fakecloud", Duration(0), {{p_, kWideKey}}},
        clock_, std::vector<std::string>{p_});
    ASSERT_TRUE(cloud_->start().ok());
    std::vector<std::string> extra;
    if (p_ == "lambda") extra.push_back(std::string("ssh_user: ") + getpwuid(getuid())->pw_name);
    write_provider_config(home_, p_, cloud_->provider_url(p_), extra);
    env_ = {{GetParam().key_env, kWideKey}};
  }

  // Every line of every pulled artefact, counted.
  std::map<std::string, int> items_home() {
    std::map<std::string, int> seen;
    for (const auto& f : files_under(home_.work() + "/got")) {
      std::istringstream lines(read_file(f));
      for (std::string line; std::getline(lines, line);) ++seen[line];
    }
    return seen;
  }
  void expect_every_item_exactly_once() {
    auto seen = items_home();
    EXPECT_EQ(seen.size(), 2000u);
    for (const auto& [item, n] : seen) EXPECT_EQ(n, 1) << item;
  }
  // No pod alive by the emulator's own state, and every GPU pod it ever made terminated.
  void expect_no_pod_left() {
    for (const auto& pod : cloud_->state().live_pods()) ADD_FAILURE() << pod.id << " still live";
    for (const auto& pod : cloud_->state().all_pods())
      EXPECT_EQ(pod.phase, fakecloud::Phase::kTerminated) << pod.id;
  }
  int gpu_pods_made() {
    int n = 0;
    for (const auto& pod : cloud_->state().all_pods()) n += pod.gpu;
    return n;
  }
  json report_of_latest_job() {
    std::string jobs;
    EXPECT_EQ(run_burst(home_, {"jobs", "--json"}, &jobs, nullptr, env_), 0) << jobs;
    auto list = json::parse(jobs, nullptr, false);
    if (!list.is_array() || list.empty()) return json();
    const std::string id = list[0]["id"];
    return json::parse(read_file(home_.state() + "/reports/" + id + ".json"), nullptr, false);
  }

  std::string p_;
  BurstHome home_;
  SystemClock clock_;
  std::unique_ptr<fakecloud::FakeCloud> cloud_;
  std::map<std::string, std::string> env_;
};

TEST_P(E2EWorkersCloud, FourPodsEachProcessTheirShardAndAreAllDeleted) {
  const std::string spec = home_.write("wide.yaml", wide_spec(GetParam(), "", ""));
  std::string plan_out, plan_err;
  ASSERT_EQ(run_burst(home_, {"plan", spec}, &plan_out, &plan_err, env_), 0)
      << plan_out << plan_err;
  EXPECT_NE(plan_out.find("4 workers"), std::string::npos) << plan_out;
  // Vast's volumes live on one machine: the plan says what the workers will do about it.
  EXPECT_EQ(plan_out.find("e2e-wide-vol-w<i>") != std::string::npos, p_ == "vast") << plan_out;

  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"run", spec, "--yes"}, &out, &err, env_), 0) << out << err;
  for (int w = 0; w < 4; ++w)
    EXPECT_NE(out.find("[w" + std::to_string(w) + "] worker " + std::to_string(w) +
                       " of 4: 500 "
                       "items"),
              std::string::npos)
        << out;
  EXPECT_EQ(gpu_pods_made(), 4) << out;
  expect_no_pod_left();
  expect_every_item_exactly_once();
  for (int w = 0; w < 4; ++w) {  // the merge rule: one subdirectory per worker
    const std::string f =
        home_.work() + "/got/w" + std::to_string(w) + "/done-" + std::to_string(w) + ".txt";
    EXPECT_TRUE(std::filesystem::exists(f)) << f;
  }

  const json report = report_of_latest_job();
  ASSERT_TRUE(report.is_object()) << out;
  ASSERT_EQ(report["workers"].size(), 4u) << report.dump(2);
  for (const auto& w : report["workers"]) {
    EXPECT_EQ(w["items"], 500) << w.dump();
    EXPECT_EQ(w["pods"].size(), 1u) << w.dump();
  }
  EXPECT_EQ(report["curve_point"]["workers"], 4) << report.dump(2);
  expect_key_nowhere(home_, *cloud_, out, err, kWideKey);
  // The code sync: once per volume the pods share (job_phases.h, FleetProvision).
  auto count = [&](const std::string& needle) {
    int n = 0;
    for (size_t at = out.find(needle); at != std::string::npos; at = out.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("this job's one sync on this volume in"), p_ == "vast" ? 3 : 1) << out;
  if (p_ == "vast") {
    // Volumes live on one machine, and the plan's (Quebec, 2 GPUs) has room for two workers: they
    // share the job's volume; the other two each get a volume of their own on the next machine.
    // The emulator refuses a pod off its volume's machine, so every create above was placed.
    EXPECT_EQ(cloud_->state().volumes(p_).size(), 3u) << out;
    EXPECT_NE(out.find("on a volume of its own, e2e-wide-vol-w"), std::string::npos) << out;
  }
}

// The run step of worker 1's first pod marks that it runs and waits; the test then has the
// provider lose that pod (terminated under the running step, as a preempted or failed host).
std::string lose_w1_prefix(const std::string& mark_dir) {
  return "  if [ \"$BURST_WORKER_INDEX\" = 1 ] && mkdir '" + mark_dir +
         "/w1-running' 2>/dev/null; then sleep 60; fi\n";
}

// Waits for worker 1's run to start, then deletes its pod in the emulator (not through burst).
bool lose_worker_1_pod(fakecloud::FakeCloud& cloud, const std::string& provider,
                       const std::string& mark_dir, BurstProcess& run) {
  for (int i = 0; i < 3000 && !std::filesystem::exists(mark_dir + "/w1-running"); ++i) {
    if (run.wait(0) != -1) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (const auto& pod : cloud.state().pods(provider))
    if (pod.name.ends_with("-gpu1")) return cloud.state().delete_pod(provider, pod.id);
  return false;
}

// The failure path on one emulated cloud (RunPod): what it proves is the fleet's, not the
// provider's, and each cloud costs CI seconds. The same loss with the default one retry, which
// succeeds, is the chaos matrix's CI cell runpod.worker-lost.mid-run (docs/chaos.md).
class E2EWorkersLost : public E2EWorkersCloud {};

TEST_P(E2EWorkersLost, WithNoRetriesALostWorkerFailsTheJobAndNoPodIsLeft) {
  const std::string spec = home_.write(
      "wide.yaml", wide_spec(GetParam(), "  worker_retries: 0\n", lose_w1_prefix(home_.root())));
  BurstProcess run(home_, {"run", spec, "--yes"}, env_);
  ASSERT_TRUE(lose_worker_1_pod(*cloud_, p_, home_.root(), run)) << run.out() << run.err();
  const int rc = run.wait(120);
  EXPECT_NE(rc, 0) << run.out() << run.err();
  EXPECT_NE(rc, -1) << run.out() << run.err();
  const std::string out = run.out();
  EXPECT_EQ(out.find("its shard runs again"), std::string::npos) << out;
  EXPECT_EQ(gpu_pods_made(), 4) << out;
  expect_no_pod_left();
  const json report = report_of_latest_job();
  ASSERT_TRUE(report.is_object()) << out;
  EXPECT_EQ(report["job"]["state"], "failed") << report["job"].dump(2);
  EXPECT_EQ(report["job"]["error"].get<std::string>().rfind("w1: ", 0), 0u)
      << report["job"].dump(2);
}

std::string wide_cloud_name(const ::testing::TestParamInfo<WideCloud>& i) {
  return std::string(i.param.provider);
}
INSTANTIATE_TEST_SUITE_P(EachCloud, E2EWorkersCloud, ::testing::ValuesIn(kWideClouds),
                         wide_cloud_name);
INSTANTIATE_TEST_SUITE_P(RunPod, E2EWorkersLost, ::testing::Values(kWideClouds[0]),
                         wide_cloud_name);

}  // namespace
}  // namespace burst::testing
