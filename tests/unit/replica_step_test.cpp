// The run step as replicas on one pod (job/replica_step.h): the wrapper the supervisor runs,
// executed here by the shells a pod has (bash, and dash as /bin/sh), over a temp dir standing in
// for the pod's directory.
#include "job/replica_step.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fakes/temp_dir.h"
#include "job/replica_stats.h"
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
// `bin`: a dir put first on the wrapper's PATH (a fake nvidia-smi), "" for none.
Ran run_wrapper(const TempDir& pod, const PodLayout& l, const std::string& script,
                const std::vector<std::string>& items, const std::string& shell,
                const std::string& bin = "") {
  for (int i = 0; i < l.replicas; ++i) {
    std::string text;
    for (const std::string& item : shard_of(items, i, l.replicas)) text += item + "\n";
    std::ofstream(replica_items_path(pod.path(), i)) << text;
  }
  std::ofstream(replica_script_path(pod.path())) << script << "\n";
  std::ofstream(pod.path() + "/run.sh") << replica_wrapper(l, pod.path(), true);
  const std::string path = bin.empty() ? "" : "PATH='" + bin + "':\"$PATH\" ";
  const std::string cmd =
      "cd '" + pod.path() + "' && " + path + shell + " -e run.sh >out.txt 2>err.txt";
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
  // Each replica's facts say how its copy ended.
  for (int i = 0; i < 3; ++i) {
    auto stats = parse_replica_stats(read_replica_file(replica_stats_path(pod.path(), i)));
    ASSERT_TRUE(stats.ok()) << i << ": " << stats.error().message;
    EXPECT_EQ(stats->exit_status, i == 1 ? 1 : 0) << i;
  }
}

// Each replica leaves its facts (job/replica_stats.h): when it ran, how it ended and, where
// nvidia-smi answers, its own cards' utilisation. The fake nvidia-smi answers only the query the
// wrapper makes, per card of the -i list (card 3 says [N/A], as a card without the counter does).
TEST_P(ReplicaStep, EachReplicaLeavesItsRunTimeAndItsOwnCardsUtilisation) {
  TempDir pod;
  const std::string bin = pod.path() + "/bin";
  std::filesystem::create_directories(bin);
  std::ofstream(bin + "/nvidia-smi")
      << "#!/bin/sh\n"
         "[ \"$1 $2 $3\" = '--query-gpu=utilization.gpu --format=csv,noheader,nounits -i' ] "
         "|| exit 2\n"
         "case $4 in 0,1) printf '90\\n70\\n' ;; 2,3) printf '50\\n[N/A]\\n' ;; *) exit 2 ;; "
         "esac\n";
  std::filesystem::permissions(bin + "/nvidia-smi", std::filesystem::perms::owner_all);
  const PodLayout l{4, 2, 2, false};
  const Ran r = run_wrapper(pod, l, "sleep 1", numbered(4), GetParam(), bin);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::vector<ReplicaStats> stats;
  for (int i = 0; i < 2; ++i) {
    auto s = parse_replica_stats(read_replica_file(replica_stats_path(pod.path(), i)));
    ASSERT_TRUE(s.ok()) << i << ": " << s.error().message;
    EXPECT_EQ(s->exit_status, 0);
    EXPECT_GE(s->end_s - s->start_s, 0);
    EXPECT_LE(s->end_s - s->start_s, 3);
    stats.push_back(*s);
  }
  // One sample at the start (the next is 5 s later): cards 0 and 1, then card 2 alone.
  EXPECT_EQ(stats[0].util_samples, 2);
  EXPECT_EQ(stats[0].util_sum, 160);
  EXPECT_EQ(stats[1].util_samples, 1);
  EXPECT_EQ(stats[1].util_sum, 50);
  ReplicaRecord base;
  base.job_id = "j";
  base.replicas = 2;
  const auto records = replica_records(base, {0, 1}, stats, {"0,1", "2,3"}, {2, 2});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].gpus, "0,1");
  EXPECT_EQ(records[1].items, 2);
  EXPECT_DOUBLE_EQ(*records[0].gpu_util_pct, 80);
  EXPECT_DOUBLE_EQ(*records[1].gpu_util_pct, 50);
  EXPECT_GE(records[0].step_ms, records[0].run_ms);
  // Without nvidia-smi: the times and the status, no utilisation line.
  TempDir bare;
  ASSERT_EQ(run_wrapper(bare, l, "true", numbered(4), GetParam()).status, 0);
  auto plain = parse_replica_stats(read_replica_file(replica_stats_path(bare.path(), 1)));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->util_samples, 0);
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

// The facts file is the pod's words: exactly the wrapper's lines, in order, bounded.
TEST(ReplicaStats, TakesExactlyTheWrappersLinesAndRefusesAnythingElseSayingWhat) {
  auto ok = parse_replica_stats("burst-replica 1\nstart 100\nend 160\nexit 0\nutil 900 10\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->start_s, 100);
  EXPECT_EQ(ok->end_s, 160);
  EXPECT_EQ(ok->util_sum, 900);
  EXPECT_EQ(ok->util_samples, 10);
  EXPECT_TRUE(parse_replica_stats("burst-replica 1\nstart 1\nend 1\nexit 255\n").ok());
  const std::pair<std::string, std::string> bad[] = {
      {"", "does not start with \"burst-replica 1\""},
      {"burst-replica 2\nstart 1\nend 2\nexit 0\n", "does not start with"},
      {"burst-replica 1\nend 2\nstart 1\nexit 0\n", "expected \"start <unix seconds>\""},
      {"burst-replica 1\nstart -1\nend 2\nexit 0\n", "expected \"start"},
      {"burst-replica 1\nstart 1\nend 2\nexit 0", "expected \"exit <0..255>\""},
      {"burst-replica 1\nstart 3\nend 2\nexit 0\n", "ends before it starts"},
      {"burst-replica 1\nstart 1\nend 2\nexit 256\n", "expected \"exit <0..255>\""},
      {"burst-replica 1\nstart 1\nend 2\nexit 0\nutil 101 1\n", "utilisation above 100%"},
      {"burst-replica 1\nstart 1\nend 2\nexit 0\nutil 1\n", "expected \"util <sum> <samples>\""},
      {"burst-replica 1\nstart 1\nend 2\nexit 0\nutil 1 1\nmore\n", "more than the expected"},
      {"burst-replica 1\nstart 1234567890123\nend 1234567890124\nexit 0\n", "expected \"start"},
      {"burst-replica 1\nstart 1\nend 2\nexit 0\n" + std::string(2000, ' '), "longer than 1024"},
  };
  for (const auto& [text, why] : bad) {
    auto r = parse_replica_stats(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.rfind("replica stats: ", 0), 0u) << r.error().message;
  }
}

}  // namespace
}  // namespace burst
