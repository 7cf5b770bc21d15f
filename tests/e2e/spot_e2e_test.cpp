// Spot (interruptible) pods end to end (issue 33, items 2-4): the real binaries against the Vast
// emulator, which rents interruptible instances (a `bid` search, a `price` on create) and takes
// them back the way Vast stops an outbid instance (fakecloud/vast_api.cpp, Faults::preempt_bids,
// CloudState::preempt). A spot worker preempted mid-run keeps the items its done records show
// finished and hands the rest to a new spot pod: every item rendered exactly once, every pod
// deleted, the report listing the preemption and what spot saved. A preemption storm beyond the
// policy's limit (job/worker_fleet.h, kSpotPodsPerWorker) ends on an on-demand pod. `burst
// plan` of a spot spec shows both prices and the expected cost with its prior (plan/spot_risk.h),
// for SkyPilot's use_spot too. RunPod's spot pods go through its GraphQL API (the emulator's
// /graphql, fakecloud/runpod_graphql.cpp), preempted as RunPod documents: EXITED.
#include <gtest/gtest.h>
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
namespace fs = std::filesystem;

constexpr const char* kSpotKey = "spot_E2EKEY_must_never_be_seen_33";
constexpr int kItems = 12;

// Each item: a pause (the work), its output appended to "<item>.out" in the code dir on the
// volume, then its done record. An item rendered twice would leave two lines in its file.
std::string spot_spec(const std::string& provider, const std::string& extra,
                      const std::string& run_prefix = "") {
  return "version: 1\nname: e2e-spot\nresources:\n  providers: [" + provider +
         "]\n  gpus: [RTX_4090]\n  spot: true\n" + extra +
         "volume: {name: e2e-spot-vol, size_gb: 10, mount: /workspace}\n"
         "image: python:3.11-slim\ncode: {dir: app}\n"
         "workload:\n  kind: custom\n  items: " +
         std::to_string(kItems) +
         "\n  items_file: items.txt\n  reference: {gpu: RTX_4090, runtime: 12s}\n"
         "run: |\n" +
         run_prefix +
         "  while IFS= read -r item; do\n"
         "    sleep 0.4\n"
         "    echo \"$item\" >> \"$item.out\"\n"
         "    echo \"$item\" >> \"$BURST_DONE_FILE\"\n"
         "  done < \"$BURST_ITEMS_FILE\"\n"
         "  echo \"rendered $(wc -l < \"$BURST_ITEMS_FILE\") items on this pod\"\n"
         "artefacts:\n  - {remote: \"*.out\", local: ./got}\n";
}

class E2ESpot : public ::testing::Test {
 protected:
  void start(const std::string& provider) {
    p_ = provider;
    std::string items;
    for (int i = 0; i < kItems; ++i) items += "item-" + std::to_string(i) + "\n";
    home_.write("app/items.txt", items);
    cloud_ = std::make_unique<fakecloud::FakeCloud>(
        fakecloud::EmulatorOptions{home_.root() + "/fakecloud", Duration(0), {{p_, kSpotKey}}},
        clock_, std::vector<std::string>{p_});
    ASSERT_TRUE(cloud_->start().ok());
    write_provider_config(home_, p_, cloud_->provider_url(p_));
    env_ = {{p_ == "vast" ? "VAST_API_KEY" : "RUNPOD_API_KEY", kSpotKey}};
  }
  void SetUp() override {
    if (getuid() != 0)
      GTEST_SKIP() << "Vast instances are reached as root; the loopback sshd accepts only its user";
  }

  // Every pulled output file and its lines: each item once, one line each.
  // `out` is burst's output, printed with a failure: which pod ran what.
  void expect_every_item_exactly_once(const std::string& out) {
    std::map<std::string, int> seen;
    for (const auto& f : files_under(home_.work() + "/got")) {
      std::istringstream lines(read_file(f));
      for (std::string line; std::getline(lines, line);) ++seen[line];
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(kItems)) << out;
    bool once = true;
    for (const auto& [item, n] : seen) {
      EXPECT_EQ(n, 1) << item << " rendered " << n << " times";
      once = once && n == 1;
    }
    if (!once) ADD_FAILURE() << "burst's output:\n" << out;
  }
  void expect_no_pod_left() {
    for (const auto& pod : cloud_->state().live_pods()) ADD_FAILURE() << pod.id << " still live";
    for (const auto& pod : cloud_->state().all_pods())
      EXPECT_EQ(pod.phase, fakecloud::Phase::kTerminated) << pod.id;
  }
  void preempted_mid_run(const std::string& provider, const std::string& words);
  // The GPU pods made, in creation order, and whether each was a bid (Vast's `is_bid`, RunPod's
  // podRentInterruptable).
  std::vector<bool> bids_made() {
    auto pods = cloud_->state().all_pods();
    std::sort(pods.begin(), pods.end(), [](const auto& a, const auto& b) {
      return a.created < b.created || (a.created == b.created && a.id < b.id);
    });
    std::vector<bool> out;
    for (const auto& pod : pods)
      out.push_back(pod.extra.value("is_bid", false) || pod.extra.value("interruptible", false));
    return out;
  }
  json report_of_latest_job() {
    std::string jobs;
    EXPECT_EQ(run_burst(home_, {"jobs", "--json"}, &jobs, nullptr, env_), 0) << jobs;
    auto list = json::parse(jobs, nullptr, false);
    if (!list.is_array() || list.empty()) return json();
    const std::string id = list[0]["id"];
    return json::parse(read_file(home_.state() + "/reports/" + id + ".json"), nullptr, false);
  }
  // Lines in the worker's done records on the emulated volume (0 while there are none).
  int done_lines() {
    int n = 0;
    for (const auto& v : cloud_->state().volumes(p_)) {
      const std::string dir = v.dir + "/.burst/done";
      if (!fs::exists(dir)) continue;
      for (const auto& f : files_under(dir)) {
        std::istringstream lines(read_file(f));
        for (std::string line; std::getline(lines, line);) ++n;
      }
    }
    return n;
  }

  std::string p_;
  BurstHome home_;
  SystemClock clock_;
  std::unique_ptr<fakecloud::FakeCloud> cloud_;
  std::map<std::string, std::string> env_;
};

TEST_F(E2ESpot, VastPlanShowsBothPricesAndTheExpectedCostWithItsPrior) {
  start("vast");
  const std::string spec = home_.write("spot.yaml", spot_spec("vast", ""));
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"plan", spec}, &out, &err, env_), 0) << out << err;
  EXPECT_NE(out.find("/h spot, $"), std::string::npos) << out;
  EXPECT_NE(out.find("/h on-demand; estimate $"), std::string::npos) << out;
  EXPECT_NE(out.find("expected preemptions (prior 0.25 per pod-hour)"), std::string::npos) << out;
  EXPECT_NE(out.find("prior: assumed 0.25/pod-hour: Vast publishes no rate"), std::string::npos)
      << out;
  EXPECT_NE(out.find("choice:  spot: expected $"), std::string::npos) << out;
  EXPECT_NE(out.find("(live offer, spot)"), std::string::npos) << out;

  ASSERT_EQ(run_burst(home_, {"plan", spec, "--json"}, &out, &err, env_), 0) << out << err;
  const json plan = json::parse(out, nullptr, false);
  ASSERT_TRUE(plan.is_object()) << out;
  const json& s = plan["spot"];
  EXPECT_EQ(s["chosen"], true) << s.dump(2);
  EXPECT_LT(s["spot_usd_per_hour"].get<double>(), s["on_demand_usd_per_hour"].get<double>());
  EXPECT_LT(s["expected_usd"].get<double>(), s["on_demand_usd"].get<double>()) << s.dump(2);
  EXPECT_GT(s["expected_usd"].get<double>(), s["spot_usd"].get<double>()) << s.dump(2);
  EXPECT_EQ(s["prior_per_pod_hour"], 0.25);

  // SkyPilot's use_spot is the same request.
  const std::string sky = home_.write("sky.yaml",
                                      "name: sky-spot\nresources:\n  cloud: vast\n"
                                      "  accelerators: RTX4090:1\n  use_spot: true\n"
                                      "run: echo hi\n");
  ASSERT_EQ(run_burst(home_, {"plan", sky}, &out, &err, env_), 0) << out << err;
  EXPECT_NE(out.find("/h spot, $"), std::string::npos) << out << err;
  EXPECT_NE(out.find("choice:  "), std::string::npos) << out << err;
}

TEST_F(E2ESpot, RunpodPlanShowsBothPricesFromGraphqlMinimumBids) {
  start("runpod");
  const std::string spec = home_.write("spot.yaml", spot_spec("runpod", ""));
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"plan", spec}, &out, &err, env_), 0) << out << err;
  EXPECT_NE(out.find("/h spot, $"), std::string::npos) << out;
  EXPECT_NE(out.find("prior: assumed 0.25/pod-hour: RunPod publishes no rate"), std::string::npos)
      << out;
  EXPECT_NE(out.find("(live offer, spot)"), std::string::npos) << out;
  EXPECT_EQ(out.find("spot not offered"), std::string::npos) << out;
  ASSERT_EQ(run_burst(home_, {"plan", spec, "--json"}, &out, &err, env_), 0) << out << err;
  const json plan = json::parse(out, nullptr, false);
  ASSERT_TRUE(plan.is_object()) << out;
  // The emulator's RTX 4090: $0.69/h on-demand, minimumBidPrice $0.35: bid 0.35 x 1.10.
  EXPECT_NEAR(plan["spot"]["spot_usd_per_hour"].get<double>(), 0.385, 1e-9) << plan["spot"];
  EXPECT_NEAR(plan["spot"]["on_demand_usd_per_hour"].get<double>(), 0.69, 1e-9) << plan["spot"];
  // GraphQL without the key in its URL: the Bearer header only.
  bool asked = false;
  for (const auto& e : cloud_->state().request_log())
    if (e.path.find("/graphql") != std::string::npos) {
      asked = true;
      EXPECT_TRUE(e.authorised) << e.path;
      EXPECT_FALSE(e.key_leaked) << e.path;
    }
  EXPECT_TRUE(asked);
}

// A spot worker preempted mid-run on `provider`, whose preempted pod the provider describes in
// `words` (what the report's preemption line quotes).
void E2ESpot::preempted_mid_run(const std::string& provider, const std::string& words) {
  start(provider);
  const std::string spec = home_.write("spot.yaml", spot_spec(provider, ""));
  BurstProcess run(home_, {"run", spec, "--yes"}, env_);
  // Mid-run: once three items are recorded done, the provider takes the instance back (within
  // the next item's 0.4 s pause, so never between an item's output and its done record).
  bool preempted = false;
  for (int i = 0; i < 3000 && !preempted; ++i) {
    if (run.wait(0) != -1) break;
    if (done_lines() >= 3)
      for (const auto& pod : cloud_->state().pods(p_))
        if (!pod.preempted) preempted = cloud_->state().preempt(p_, pod.id);
    if (!preempted) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(preempted) << run.out() << run.err();
  const int rc = run.wait(120);
  const std::string out = run.out();
  ASSERT_EQ(rc, 0) << out << run.err();
  EXPECT_NE(out.find("preempted (pod "), std::string::npos) << out;
  EXPECT_NE(out.find("its unfinished items run on a new spot pod"), std::string::npos) << out;
  EXPECT_NE(out.find("items finished before the preemption"), std::string::npos) << out;
  EXPECT_EQ(bids_made(), (std::vector<bool>{true, true})) << out;
  expect_no_pod_left();
  expect_every_item_exactly_once(out);

  const json report = report_of_latest_job();
  ASSERT_TRUE(report.is_object()) << out;
  const json& spot = report["spot"];
  ASSERT_TRUE(spot.is_object()) << report.dump(2);
  ASSERT_EQ(spot["preemptions"].size(), 1u) << spot.dump(2);
  EXPECT_NE(std::string(spot["preemptions"][0]).find(words), std::string::npos) << spot.dump(2);
  EXPECT_GE(spot["items_kept"].get<long>(), 3) << spot.dump(2);
  EXPECT_EQ(spot["items_kept"].get<long>() + spot["items_rerun"].get<long>(), kItems)
      << spot.dump(2);
  EXPECT_GT(spot["saved_usd"].get<double>(), 0) << spot.dump(2);
  // The price the plan rented at, and the on-demand one it is told against.
  EXPECT_LT(report["price"]["usd_per_hour"].get<double>(),
            spot["on_demand_usd_per_hour"].get<double>())
      << report.dump(2);
  EXPECT_EQ(report["price"]["source"], "live offer, spot") << report.dump(2);
  expect_key_nowhere(home_, *cloud_, out, run.err(), kSpotKey);

  // The next plan updates the prior with this store's history (plan/spot_risk.h).
  std::string again, err;
  ASSERT_EQ(run_burst(home_, {"plan", spec, "--json"}, &again, &err, env_), 0) << again << err;
  const json next = json::parse(again, nullptr, false);
  ASSERT_TRUE(next.is_object()) << again;
  EXPECT_EQ(std::string(next["spot"]["prior_source"])
                .rfind("updated with this store's 1 preemption in ", 0),
            0u)
      << next["spot"].dump(2);
  EXPECT_GT(next["spot"]["prior_per_pod_hour"].get<double>(), 0.25) << next["spot"].dump(2);
}

TEST_F(E2ESpot, VastWorkerPreemptedMidRunKeepsFinishedItemsAndEveryPodIsDeleted) {
  preempted_mid_run("vast", "stopped: outbid");
}

// RunPod's spot pods are rented through GraphQL's podRentInterruptable and read, listed and
// deleted through REST v2, where a preempted one is EXITED (providers/runpod/runpod_graphql.h).
TEST_F(E2ESpot, RunpodWorkerPreemptedMidRunKeepsFinishedItemsAndEveryPodIsDeleted) {
  preempted_mid_run("runpod", "EXITED: RunPod stopped the interruptible pod");
  int rented = 0;
  for (const auto& e : cloud_->state().request_log())
    if (e.path.find("/graphql") != std::string::npos &&
        e.body.find("podRentInterruptable") != std::string::npos && e.status == 200)
      ++rented;
  EXPECT_EQ(rented, 2) << "both spot pods through GraphQL";
}

TEST_F(E2ESpot, AStepThatCrashesOnASpotPodIsAFailureNotAPreemption) {
  start("vast");
  // The first pod's step exits 3 before any item; the provider still runs the instance.
  const std::string spec = home_.write(
      "spot.yaml",
      spot_spec("vast", "", "  if mkdir \"$BURST_VOLUME/crashed\" 2>/dev/null; then exit 3; fi\n"));
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"run", spec, "--yes"}, &out, &err, env_), 0) << out << err;
  EXPECT_NE(out.find("[w0] failed (run: exited with status 3"), std::string::npos) << out;
  EXPECT_NE(out.find("its shard runs again on a new pod, retry 1 of 1"), std::string::npos) << out;
  EXPECT_EQ(out.find("preempted"), std::string::npos) << out;
  EXPECT_EQ(bids_made(), (std::vector<bool>{true, true})) << out;
  expect_no_pod_left();
  expect_every_item_exactly_once(out);
  const json report = report_of_latest_job();
  ASSERT_TRUE(report.is_object()) << out;
  EXPECT_EQ(report["spot"]["preemptions"].size(), 0u) << report["spot"].dump(2);
}

TEST_F(E2ESpot, VastPreemptionStormEndsOnAnOnDemandPod) {
  start("vast");
  fakecloud::Faults f;
  // Every interruptible instance is taken back 0.3 s after it is up: before its first item ends
  // (each takes 0.4 s), so no render is cut between its output and its done record, and the
  // storm is what the test measures.
  f.preempt_bids = 10;
  f.preempt_after_ms = 300;
  cloud_->state().set_faults(p_, f);
  const std::string spec = home_.write("spot.yaml", spot_spec("vast", ""));
  std::string out, err;
  ASSERT_EQ(run_burst(home_, {"run", spec, "--yes"}, &out, &err, env_), 0) << out << err;
  // Two spot pods taken back (the policy's limit), then one on-demand that finishes.
  EXPECT_EQ(bids_made(), (std::vector<bool>{true, true, false})) << out;
  EXPECT_NE(out.find("its unfinished items run on a new on-demand pod"), std::string::npos) << out;
  expect_no_pod_left();
  expect_every_item_exactly_once(out);
  const json report = report_of_latest_job();
  ASSERT_TRUE(report.is_object()) << out;
  EXPECT_EQ(report["job"]["state"], "succeeded") << report["job"].dump(2);
  EXPECT_EQ(report["spot"]["preemptions"].size(), 2u) << report["spot"].dump(2);
  // The last pod's view: what the earlier ones finished, and what it ran itself.
  EXPECT_EQ(report["spot"]["items_kept"].get<long>() + report["spot"]["items_rerun"].get<long>(),
            kItems)
      << report["spot"].dump(2);
}

}  // namespace
}  // namespace burst::testing
