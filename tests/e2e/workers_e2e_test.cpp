// `burst run` going wide on the local cloud (job/worker_fleet.h): real sshd pods sharing one
// volume directory, real SFTP, real SQLite. The in-process suite (tests/unit/worker_fleet_test.cpp)
// covers retries and the budget; this proves the binaries do it: the plan `burst plan` prints is
// the one `burst run` executes, four pods each process their shard, every item comes home once
// and no pod is left.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

using nlohmann::json;

TEST(E2EWorkers, FourWorkersSplitTwoThousandItemsAndLeaveNoPod) {
  BurstHome home;
  std::string items;
  for (int i = 0; i < 2000; ++i) items += "item-" + std::to_string(i) + "\n";
  home.write("app/items.txt", items);
  const std::string spec = home.write("wide.yaml", R"YAML(version: 1
name: e2e-wide
volume: {name: e2e-wide-vol}
code: {dir: app}
workload:
  kind: custom
  items: 2000
  items_file: items.txt
  reference: {gpu: local, runtime: 2000s}
resources: {providers: [local], max_workers: 4}
budget: {deadline: 10m}
run: |
  cp "$BURST_ITEMS_FILE" "done-$BURST_WORKER_INDEX.txt"
  echo "worker $BURST_WORKER_INDEX of $BURST_WORKER_COUNT: $(wc -l < "$BURST_ITEMS_FILE") items"
artefacts:
  - {remote: done-*.txt, local: ./got}
)YAML");
  std::string plan_out, plan_err;
  ASSERT_EQ(run_burst(home, {"plan", spec}, &plan_out, &plan_err), 0) << plan_out << plan_err;
  EXPECT_NE(plan_out.find("4 workers"), std::string::npos) << plan_out;

  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec}, &out, &err), 0) << out << err;
  EXPECT_NE(out.find("[w3] worker 3 of 4: 500 items"), std::string::npos) << out;
  auto ids = pod_ids_in(out);
  EXPECT_EQ(ids.size(), 4u) << out;
  for (const auto& id : ids) EXPECT_TRUE(pod_processes(id).empty()) << id << " still runs";

  std::map<std::string, int> seen;
  for (const auto& f : files_under(home.work() + "/got")) {
    std::istringstream lines(read_file(f));
    for (std::string line; std::getline(lines, line);) ++seen[line];
  }
  EXPECT_EQ(seen.size(), 2000u);
  for (const auto& [item, n] : seen) EXPECT_EQ(n, 1) << item;
  EXPECT_EQ(read_file(home.work() + "/got/w0/done-0.txt").substr(0, 7), "item-0\n");
}

}  // namespace
}  // namespace burst::testing
