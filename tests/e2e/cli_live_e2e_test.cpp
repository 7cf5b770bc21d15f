// The CLI around a running job, end to end on the local cloud (issue 21): `burst logs` without a
// daemon (and -f until the job ends), `burst exec` and `burst ssh` into the live pod with the
// pinned host key, the run flags --secret, --env, --gpus, --dryrun, --detach, and a --provider
// list (--gpus and --provider on `plan` too). One job is kept alive by a step that waits for a file
// the test creates through exec.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string only_job_id(const BurstHome& home) {
  std::string out;
  if (run_burst(home, {"jobs", "--json"}, &out, nullptr) != 0) return "";
  json jobs = json::parse(out, nullptr, false);
  return jobs.is_array() && jobs.size() == 1 ? jobs[0]["id"].get<std::string>() : "";
}

TEST(E2ECliLive, LogsExecAndSshReachARunningJobWithoutADaemon) {
  BurstHome home;
  const std::string release = home.root() + "/release";
  const std::string spec = home.write("live.yaml",
                                      "name: live\nresources: {providers: [local]}\nrun: |\n  test "
                                      "\"$LIVE_SECRET\" = s3cret-value-42 || exit 9\n"
                                      "  echo \"live-started $LIVE_ENV\"\n"
                                      "  while [ ! -e '" +
                                          release + "' ]; do sleep 0.05; done\n  echo released\n");
  BurstProcess run(home, {"run", spec, "--yes", "--secret", "LIVE_SECRET=s3cret-value-42", "--env",
                          "LIVE_ENV=from-flag"});
  ASSERT_TRUE(run.wait_for_stdout("live-started from-flag", 60)) << run.out() << run.err();
  const std::string id = only_job_id(home);
  ASSERT_FALSE(id.empty());

  std::string out, err;
  ASSERT_EQ(run_burst(home, {"logs", id}, &out, &err), 0) << err;
  EXPECT_NE(out.find("live-started from-flag"), std::string::npos) << out;
  EXPECT_EQ(out.find("s3cret-value-42"), std::string::npos) << "a --secret never reaches the log";
  ASSERT_EQ(run_burst(home, {"logs", id, "--json"}, &out, &err), 0) << err;
  EXPECT_EQ(json::parse(out)["state"], "running") << out;

  // exec: the remote command's output and exit status.
  EXPECT_EQ(run_burst(home, {"exec", id, "--", "sh", "-c", "echo from-pod; exit 7"}, &out, &err), 7)
      << err;
  EXPECT_EQ(out, "from-pod\n");
  // ssh: OpenSSH's client, trusting only the host key the job pinned.
  EXPECT_EQ(run_burst(home, {"ssh", id, "--", "echo via-ssh"}, &out, &err), 0) << err;
  EXPECT_EQ(out, "via-ssh\n") << err;
  EXPECT_EQ(run_burst(home, {"ssh", id, "cpu"}, &out, &err), 4) << "no upload pod in this job";
  // ~/.ssh/config: burst's own file has a Host entry for the live pod, and OpenSSH reaches it
  // with nothing but that file; the run said how to include it.
  const std::string ssh_config = home.root() + "/config/ssh_config";
  EXPECT_NE(read_file(ssh_config).find("Host burst-" + id + "\n"), std::string::npos)
      << read_file(ssh_config);
  EXPECT_NE(run.out().find("`ssh burst-" + id + "` reaches this pod"), std::string::npos)
      << run.out();
  EXPECT_EQ(
      std::system(("ssh -F '" + ssh_config + "' -o BatchMode=yes burst-" + id + " true </dev/null")
                      .c_str()),
      0)
      << read_file(ssh_config);

  BurstProcess follow(home, {"logs", id, "-f"});
  EXPECT_EQ(run_burst(home, {"exec", id, "--", "touch", release}, &out, &err), 0) << err;
  EXPECT_EQ(run.wait(60), 0) << run.out() << run.err();
  EXPECT_EQ(follow.wait(30), 0) << follow.out() << follow.err();
  EXPECT_NE(follow.out().find("live-started"), std::string::npos) << follow.out();
  EXPECT_NE(follow.out().find("| released"), std::string::npos) << follow.out();
  EXPECT_NE(follow.out().find("job " + id + " succeeded"), std::string::npos) << follow.out();
  EXPECT_EQ(run_burst(home, {"ssh", id}, &out, &err), 4) << "an ended job has no pod: " << err;
  EXPECT_EQ(read_file(ssh_config).find("burst-" + id), std::string::npos)
      << "the entry goes with its pod: " << read_file(ssh_config);
  EXPECT_NE(err.find("has ended (succeeded)"), std::string::npos) << err;
}

TEST(E2ECliLive, QuietRunPrintsOnlyTheOutcome) {
  BurstHome home;
  const std::string spec = home.write(
      "q.yaml", "name: quiet\nresources: {providers: [local]}\nrun: echo BURST_PROGRESS 1/1\n");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--yes", "-q"}, &out, &err), 0) << err;
  const std::string id = only_job_id(home);
  EXPECT_EQ(out.rfind("job " + id + " succeeded; report ", 0), 0u) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

TEST(E2ECliLive, DryrunGpusAndAProviderListCreateNothing) {
  BurstHome home;
  const std::string spec = home.write("job.yaml", "name: dry\nrun: echo hi\n");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--dryrun"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("dry run: nothing was created"), std::string::npos) << out;
  EXPECT_NE(out.find("GPU pod: local"), std::string::npos) << out;
  ASSERT_EQ(run_burst(home, {"run", spec, "--dryrun", "--json"}, &out, &err), 0) << err;
  EXPECT_EQ(json::parse(out)["provider"], "local") << out;
  // --gpus: the catalog name matched ignoring case and '-', N per pod (runpod priced from the
  // offline table, without a key).
  ASSERT_EQ(
      run_burst(home,
                {"plan", spec, "--json", "--all", "--provider", "runpod", "--gpus", "rtx-4090:2"},
                &out, &err),
      0)
      << err;
  json plan = json::parse(out);
  EXPECT_EQ(plan["chosen"]["gpu"], "RTX_4090") << out;
  for (const auto& c : plan["candidates"]) {
    if (c["rejected"] == "") {
      EXPECT_EQ(c["gpu"], "RTX_4090") << "only the --gpus type fits";
    }
  }
  EXPECT_EQ(run_burst(home, {"run", spec, "--dryrun", "--gpus", "NO_SUCH_GPU"}, &out, &err), 2);
  EXPECT_NE(err.find("--gpus: no GPU type \"NO_SUCH_GPU\""), std::string::npos) << err;
  EXPECT_EQ(only_job_id(home), "") << "a dry run records no job";
  EXPECT_TRUE(pod_ids_in(out + err).empty());

  // A provider list: both are priced in one plan (runpod from the offline table, without a key).
  ASSERT_EQ(
      run_burst(home, {"plan", spec, "--json", "--all", "--provider", "local,runpod"}, &out, &err),
      0)
      << err;
  std::set<std::string> providers;
  const json priced = json::parse(out);  // named: a range-for over a temporary's member dangles
  for (const auto& c : priced["candidates"]) providers.insert(c["provider"]);
  EXPECT_EQ(providers, (std::set<std::string>{"local", "runpod"})) << out;
  ASSERT_EQ(
      run_burst(home,
                {"plan", spec, "--json", "--all", "--provider", "local", "--provider", "runpod"},
                &out, &err),
      0)
      << "--provider repeated: " << err;
}

TEST(E2ECliLive, DetachHandsTheJobToBurstdAndLogsFollowsItFromTheStateDir) {
  BurstHome home;
  fs::create_directories(home.root() + "/config");
  std::ofstream(home.root() + "/config/burstd.yaml") << "max_concurrent_jobs: 1\n";
  const std::string log = home.root() + "/burstd.err";
  const pid_t burstd = spawn_logged({BURSTD_BINARY}, home.env(), log, log);
  ASSERT_GT(burstd, 0);
  bool ready = false;
  for (int i = 0; i < 200 && !ready; ++i) {
    ready = fs::exists(home.state() + "/burstd.sock") &&
            run_burst(home, {"status"}, nullptr, nullptr) == 0;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(ready) << read_file(log);
  const std::string spec = home.write(
      "job.yaml", "name: detached\nresources: {providers: [local]}\nrun: echo detached-ran\n");
  std::string out, err;
  ASSERT_EQ(run_burst(home, {"run", spec, "--detach", "--json"}, &out, &err), 0) << err;
  const std::string id = json::parse(out)["id"];
  ASSERT_FALSE(id.empty()) << out;
  std::string followed;
  for (int i = 0; i < 100 && !fs::exists(home.state() + "/logs/" + id + ".log"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // The state dir's log, read without asking burstd.
  EXPECT_EQ(
      run_burst(home, {"logs", id, "-f", "--socket", home.root() + "/none.sock"}, &followed, &err),
      0)
      << followed << err << read_file(log);
  EXPECT_NE(followed.find("| detached-ran"), std::string::npos) << followed;
  EXPECT_NE(followed.find("job " + id + " succeeded"), std::string::npos) << followed;
  kill(burstd, SIGTERM);
  waitpid(burstd, nullptr, 0);
}

}  // namespace
}  // namespace burst::testing
