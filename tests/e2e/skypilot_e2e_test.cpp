// SkyPilot task files through the real binary (validate, plan, convert, run on the local cloud),
// and the CLI's answers to an unknown command, `help` and `version`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(BURST_SOURCE_DIR) + "/tests/data/skypilot/";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Copies a test file (and the code dir it may use) into the home's work dir.
std::string stage(const BurstHome& home, const std::string& name) {
  fs::copy(kData + "code", home.work() + "/code", fs::copy_options::recursive);
  return home.write(name, read(kData + name));
}

TEST(E2ESkyPilot, ValidatePlanAndConvertASkyPilotFile) {
  BurstHome home;
  const std::string spec = stage(home, "llm_serving.yaml");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"validate", spec}, &out, &err), 0) << err;
  EXPECT_EQ(out, spec + ": ok (SkyPilot task, pipeline llm-serving)\n");
  EXPECT_NE(err.find("note: " + spec + ":7:3: service: not served"), std::string::npos) << err;
  // plan: priced as $/hour x the assumed hour, which it says.
  ASSERT_EQ(run_burst(home, {"plan", spec, "--env", "HF_TOKEN=x"}, &out, &err), 0) << err;
  EXPECT_NE(err.find("$/hour x 1 h, an assumed run time"), std::string::npos) << err;
  EXPECT_NE(out.find("chosen: local"), std::string::npos) << out;
  // convert: a burst spec that validate accepts next to the original.
  ASSERT_EQ(run_burst(home, {"convert", spec}, &out, &err), 0) << err;
  EXPECT_NE(out.find("image: \"vllm/vllm-openai:latest\""), std::string::npos) << out;
  EXPECT_NE(out.find("gpus: [L4, A10G, A100_40GB]"), std::string::npos) << out;
  const std::string converted = home.write("converted.yaml", out);
  ASSERT_EQ(run_burst(home, {"validate", converted}, &out, &err), 0) << err;
  EXPECT_EQ(out, converted + ": ok (pipeline llm-serving)\n");
}

TEST(E2ESkyPilot, RefusedFeatureExits2NamingTheLine) {
  BurstHome home;
  const std::string spec = home.write("cos.yaml", R"YAML(name: cos-reader
resources:
  accelerators: T4
file_mounts:
  /datasets: cos://us-east/my-bucket
run: ls /datasets
)YAML");
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"validate", spec}, &out, &err), 2);
  EXPECT_EQ(err, spec +
                     ":5:14: file_mounts./datasets: not supported: bucket source "
                     "\"cos://us-east/my-bucket\"; burst reads s3://, gs://, r2:// and https:// "
                     "sources: fetch it in setup, or put the files under workdir\n");
}

TEST(E2ESkyPilot, RunsOnTheLocalCloudWithWorkdirAndSkyPilotEnv) {
  BurstHome home;
  const std::string spec = stage(home, "local_run.yaml");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--yes", "--provider", "local", "--env", "GREETING=hi"},
                      &out, &err),
            0)
      << out << err;
  EXPECT_NE(out.find("hi rank=0 nodes=1 gpus=0"), std::string::npos) << out;
  EXPECT_NE(out.find("workdir-synced"), std::string::npos) << out;
}

// file_mounts sources outside the workdir (a home file, a home directory) are synced with the
// code (code.add) and copied to their targets before setup; a home file mounted at its own path
// on the local cloud is left as it is. `burst convert` keeps them.
TEST(E2ESkyPilot, FileMountsFromOutsideTheWorkdirReachTheirTargets) {
  BurstHome home;
  stage(home, "local_run.yaml");
  home.write("user-home/.netrc", "machine example.com login me\n");
  home.write("user-home/creds/key.txt", "key-from-home\n");
  const std::map<std::string, std::string> env{{"HOME", home.work() + "/user-home"}};
  const std::string target = home.work() + "/target";
  const std::string spec = home.write("mounts.yaml",
                                      "name: sky-mounts\nworkdir: ./code\n"
                                      "file_mounts:\n  " +
                                          target + "/netrc: ~/.netrc\n  " + target +
                                          "/creds: ~/creds\n  ~/.netrc: ~/.netrc\n"
                                          "run: |\n  cat " +
                                          target + "/netrc " + target + "/creds/key.txt\n");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"validate", spec}, &out, &err, env), 0) << err;
  EXPECT_NE(err.find("sources outside workdir are synced with it under .burst-add/"),
            std::string::npos)
      << err;
  ASSERT_EQ(run_burst(home, {"convert", spec}, &out, &err, env), 0) << err;
  EXPECT_NE(out.find("to: \".burst-add/1/creds\"}"), std::string::npos) << out;
  const std::string converted = home.write("converted.yaml", out);
  ASSERT_EQ(run_burst(home, {"validate", converted}, &out, &err, env), 0) << err;
  // The plan shows which of your files leave the code dir's bounds before anything runs.
  ASSERT_EQ(run_burst(home, {"plan", spec, "--provider", "local"}, &out, &err, env), 0) << err;
  // (The block wraps at 120 columns: each part is looked for on its own.)
  for (const std::string& part :
       {"  also synced: " + home.work() + "/user-home/.netrc (as .burst-add/0/.netrc),",
        home.work() + "/user-home/creds (as .burst-add/1/creds),",
        std::string("from outside the code dir (code.add)")})
    EXPECT_NE(out.find(part), std::string::npos) << part << "\n" << out;
  ASSERT_EQ(run_burst(home, {"run", spec, "--yes", "--provider", "local"}, &out, &err, env), 0)
      << out << err;
  EXPECT_NE(out.find("machine example.com login me"), std::string::npos) << out;
  EXPECT_NE(out.find("key-from-home"), std::string::npos) << out;
  EXPECT_EQ(read(target + "/creds/key.txt"), "key-from-home\n");
}

TEST(E2ESkyPilot, NumNodesRunsThatManyWorkersEachSeeingItsRank) {
  BurstHome home;
  const std::string spec = home.write("nodes.yaml", R"YAML(name: sky-nodes
num_nodes: 2
setup: echo "setup on node $SKYPILOT_NODE_RANK"
run: |
  echo "node $SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES, $(echo "$SKYPILOT_NODE_IPS" | wc -l) ips"
)YAML");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"validate", spec}, &out, &err), 0) << err;
  EXPECT_NE(err.find("num_nodes: 2 workers (resources.workers: 2)"), std::string::npos) << err;
  ASSERT_EQ(run_burst(home, {"plan", spec}, &out, &err), 0) << err;
  EXPECT_NE(out.find("2 workers"), std::string::npos) << out;
  // convert: the native equivalent, a fixed width of 2 workers, which validate accepts.
  ASSERT_EQ(run_burst(home, {"convert", spec}, &out, &err), 0) << err;
  EXPECT_NE(out.find("workers: 2"), std::string::npos) << out;
  const std::string converted = home.write("converted.yaml", out);
  ASSERT_EQ(run_burst(home, {"validate", converted}, &out, &err), 0) << err;

  ASSERT_EQ(run_burst(home, {"run", spec, "--yes", "--provider", "local"}, &out, &err), 0)
      << out << err;
  EXPECT_NE(out.find("[w0] setup on node 0"), std::string::npos) << out;
  EXPECT_NE(out.find("[w1] setup on node 1"), std::string::npos) << out;
  EXPECT_NE(out.find("[w0] node 0 of 2, 2 ips"), std::string::npos) << out;
  EXPECT_NE(out.find("[w1] node 1 of 2, 2 ips"), std::string::npos) << out;
  auto ids = pod_ids_in(out);
  EXPECT_EQ(ids.size(), 2u) << out;
  for (const auto& id : ids) EXPECT_TRUE(pod_processes(id).empty()) << id << " still runs";
}

TEST(E2ECliCommands, UnknownCommandSuggestsAndListsHelpAndVersionWork) {
  BurstHome home;
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"lauch", "task.yaml"}, &out, &err), 2);
  EXPECT_EQ(err.rfind("burst: unknown command 'lauch'; did you mean 'run'?\ncommands:\n", 0), 0u)
      << err;
  EXPECT_NE(err.find("\n  validate   Check a pipeline spec"), std::string::npos) << err;
  EXPECT_EQ(run_burst(home, {"stauts"}, &out, &err), 2);
  EXPECT_EQ(err.rfind("burst: unknown command 'stauts'; did you mean 'status'?", 0), 0u) << err;
  EXPECT_EQ(run_burst(home, {"xyzzy"}, &out, &err), 2);
  EXPECT_EQ(err.rfind("burst: unknown command 'xyzzy'\ncommands:\n", 0), 0u) << err;

  ASSERT_EQ(run_burst(home, {"help"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("convert"), std::string::npos) << out;
  ASSERT_EQ(run_burst(home, {"help", "run"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("--env"), std::string::npos) << out;
  EXPECT_NE(out.find("--format"), std::string::npos) << out;
  EXPECT_EQ(run_burst(home, {"help", "lauch"}, &out, &err), 2);
  EXPECT_EQ(err.rfind("burst: unknown command 'lauch'; did you mean 'run'?", 0), 0u) << err;
  ASSERT_EQ(run_burst(home, {"version"}, &out, &err), 0) << err;
  EXPECT_EQ(out.rfind("burst ", 0), 0u) << out;
}

}  // namespace
}  // namespace burst::testing
