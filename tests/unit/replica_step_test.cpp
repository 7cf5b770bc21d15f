// The run step as replicas on one pod (job/replica_step.h): the wrapper the supervisor runs,
// executed here by the shells a pod has (bash, and dash as /bin/sh), over a temp dir standing in
// for the pod's directory.
#include "job/replica_step.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fakes/temp_dir.h"
#include "plan/worker_shards.h"

namespace burst {
namespace {

std::string read_replica_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Ran {
  int status = -1;
  std::string out, err;
};

// Writes the wrapper for `l` and the spec's `script` as prepare_replicas does, the items as each
// replica's file, and runs the wrapper with `shell` -e as the supervisor would.
Ran run_wrapper(const TempDir& pod, const PodLayout& l, const std::string& script,
                const std::vector<std::string>& items, const std::string& shell) {
  for (int i = 0; i < l.replicas; ++i) {
    std::string text;
    for (const std::string& item : shard_of(items, i, l.replicas)) text += item + "\n";
    std::ofstream(replica_items_path(pod.path(), i)) << text;
  }
  std::ofstream(replica_script_path(pod.path())) << script << "\n";
  std::ofstream(pod.path() + "/run.sh") << replica_wrapper(l, pod.path(), true);
  const std::string cmd = "cd '" + pod.path() + "' && " + shell + " -e run.sh >out.txt 2>err.txt";
  Ran r;
  const int st = std::system(cmd.c_str());
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = read_replica_file(pod.path() + "/out.txt");
  r.err = read_replica_file(pod.path() + "/err.txt");
  return r;
}

std::vector<std::string> numbered(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back("item-" + std::to_string(i));
  return v;
}

// Each copy says who it is, what it sees and how many items it got, on stdout, and one line on
// stderr; then copies its items file home.
constexpr const char* kReport =
    "echo \"replica $BURST_REPLICA_INDEX of $BURST_REPLICA_COUNT cards $CUDA_VISIBLE_DEVICES "
    "hip $HIP_VISIBLE_DEVICES items $(wc -l < \"$BURST_ITEMS_FILE\")\"\n"
    "echo \"to stderr\" >&2\n"
    "cp \"$BURST_ITEMS_FILE\" \"done-$BURST_REPLICA_INDEX.txt\"";

class ReplicaStep : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplicaStep, EachReplicaSeesItsCardsAndItsShareWithItsLinesPrefixed) {
  TempDir pod;
  const PodLayout l{4, 2, 2, false};  // 2 replicas of 2 cards
  const Ran r = run_wrapper(pod, l, kReport, numbered(7), GetParam());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[r0] replica 0 of 2 cards 0,1 hip 0,1 items 3\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[r1] replica 1 of 2 cards 2,3 hip 2,3 items 4\n"), std::string::npos)
      << r.out;
  // stderr stays stderr, prefixed too; nothing of it on stdout.
  EXPECT_NE(r.err.find("[r0] to stderr\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[r1] to stderr\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("to stderr"), std::string::npos) << r.out;
  // Together the shares are every item exactly once.
  std::map<std::string, int> seen;
  for (int i = 0; i < 2; ++i) {
    std::istringstream lines(read_replica_file(pod.path() + "/done-" + std::to_string(i) + ".txt"));
    for (std::string line; std::getline(lines, line);) ++seen[line];
  }
  EXPECT_EQ(seen.size(), 7u);
  for (const auto& [item, n] : seen) EXPECT_EQ(n, 1) << item;
}

TEST_P(ReplicaStep, AFailedReplicaFailsTheStepWithItsStatusAfterTheOthersEnd) {
  TempDir pod;
  const PodLayout l{3, 1, 3, false};
  const Ran r = run_wrapper(pod, l,
                            "if [ \"$BURST_REPLICA_INDEX\" = 1 ]; then false; exit 0; fi\n"
                            "sleep 0.2; echo finished",
                            numbered(3), GetParam());
  // `false` under -e ends replica 1 with status 1; the others still run to their end.
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("[r0] finished"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[r2] finished"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("burst: replica 1 of 3 exited 1"), std::string::npos) << r.err;
}

TEST_P(ReplicaStep, ALastLineWithoutNewlineAndAQuotedScriptPathArriveWhole) {
  TempDir pod;
  const PodLayout l{2, 1, 2, false};
  const Ran r = run_wrapper(pod, l, "printf 'no newline %s' \"$BURST_REPLICA_INDEX\"", numbered(2),
                            GetParam());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[r0] no newline 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[r1] no newline 1"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Shells, ReplicaStep, ::testing::Values("bash", "sh"));

}  // namespace
}  // namespace burst
