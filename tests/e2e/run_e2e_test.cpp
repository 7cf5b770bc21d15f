// `burst run` end to end on the local cloud: real sshd pods, real SFTP, real SQLite.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kRunSecret = "sekret-6f1c-do-not-print";

std::string happy_spec(const std::string& run) {
  return R"YAML(version: 1
name: e2e-job
volume: {name: e2e-vol}
env: {GREETING: hello}
secrets: [E2E_SECRET]
resources: {providers: [local]}
code: {dir: app, exclude: ["*.tmp"]}
setup: echo setting up
run: |
)YAML" + run +
         R"YAML(
artefacts:
  - {remote: out/*.txt, local: ./got}
upload:
  run: |
    test -f out/result.txt
    cp out/result.txt "$BURST_VOLUME/uploaded.txt"
    echo "upload saw $(cat out/result.txt)"
)YAML";
}

void expect_no_pod_left(const std::string& output) {
  auto ids = pod_ids_in(output);
  EXPECT_FALSE(ids.empty()) << "no pod was created?\n" << output;
  for (const auto& id : ids)
    EXPECT_TRUE(pod_processes(id).empty()) << "pod " << id << " still has processes";
}

json run_report_of(const BurstHome& home) {
  auto files = files_under(home.state() + "/reports");
  for (const auto& f : files)
    if (f.size() > 5 && f.substr(f.size() - 5) == ".json") return json::parse(read_file(f));
  ADD_FAILURE() << "no JSON report under " << home.state() << "/reports";
  return json::object();
}

TEST(E2ERun, HappyPathSyncsRunsPullsUploadsAndDeletesBothPods) {
  BurstHome home;
  home.write("app/make.sh",
             "mkdir -p out\nprintf 'result from %s\\n' \"$BURST_JOB_ID\" > out/result.txt\n");
  home.write("app/skip.tmp", "excluded");
  std::string spec =
      home.write("job.yaml", happy_spec("  echo \"rendering with $GREETING\"\n  sh make.sh\n  test "
                                        "! -e skip.tmp\n  echo warn-line >&2"));
  std::string out, err;
  int rc = run_burst(home, {"run", spec}, &out, &err, {{"E2E_SECRET", kRunSecret}});
  ASSERT_EQ(rc, 0) << out << err;

  EXPECT_NE(out.find("  | setting up"), std::string::npos);
  EXPECT_NE(out.find("  | rendering with hello"), std::string::npos);
  EXPECT_NE(err.find("  ! warn-line"), std::string::npos);
  EXPECT_NE(out.find("upload saw result from"), std::string::npos);
  EXPECT_EQ(pod_ids_in(out).size(), 2u) << "a GPU pod and a CPU pod";
  expect_no_pod_left(out);

  json r = run_report_of(home);
  std::string job_id = r["job"]["id"];
  EXPECT_EQ(read_file(home.work() + "/got/result.txt"), "result from " + job_id + "\n");
  EXPECT_EQ(read_file(home.state() + "/local/volumes/e2e-vol/uploaded.txt"),
            "result from " + job_id + "\n");
  EXPECT_EQ(r["job"]["state"], "succeeded");
  ASSERT_EQ(r["pods"].size(), 2u);
  for (const auto& pod : r["pods"]) {
    EXPECT_TRUE(pod["deletion_confirmed"].get<bool>());
    EXPECT_GT(pod["billed_s"].get<double>(), 0.0);
  }
  std::vector<std::string> phases;
  for (const auto& p : r["phases"]) phases.push_back(p["phase"]);
  EXPECT_EQ(phases, (std::vector<std::string>{"plan", "provision", "wait-for-ssh", "sync", "setup",
                                              "run", "pull", "delete-gpu-pod", "cpu-provision",
                                              "upload", "delete-cpu-pod", "report"}));
  EXPECT_TRUE(fs::exists(home.state() + "/reports/" + job_id + ".md"));

  std::string jobs;
  ASSERT_EQ(run_burst(home, {"jobs", "--json"}, &jobs, nullptr), 0);
  EXPECT_EQ(json::parse(jobs)[0]["state"], "succeeded");
}

TEST(E2ERun, FailingRunFailsTheJobDeletesThePodAndStillReports) {
  BurstHome home;
  home.write("app/README", "x");
  std::string spec = home.write("job.yaml", happy_spec("  echo about to fail\n  exit 3"));
  std::string out, err;
  int rc = run_burst(home, {"run", spec}, &out, &err, {{"E2E_SECRET", kRunSecret}});
  EXPECT_EQ(rc, 1) << out << err;
  EXPECT_NE(err.find("run: exited with status 3"), std::string::npos) << err;
  EXPECT_EQ(pod_ids_in(out).size(), 1u) << "no CPU hand-off after a failed run";
  expect_no_pod_left(out);
  json r = run_report_of(home);
  EXPECT_EQ(r["job"]["state"], "failed");
  EXPECT_EQ(r["job"]["error"], "run: exited with status 3");
  EXPECT_TRUE(r["pods"][0]["deletion_confirmed"].get<bool>());
}

TEST(E2ERun, SecretValueNeverAppearsInOutputLogsReportsStoreOrProcessTable) {
  BurstHome home;
  home.write("app/README", "x");
  std::string spec =
      home.write("job.yaml", happy_spec("  echo \"ready\"\n  sleep 2\n  echo "
                                        "\"token=$E2E_SECRET\"\n  echo \"err $E2E_SECRET\" >&2\n"
                                        "  exit 4"));
  BurstProcess p(home, {"run", spec}, {{"E2E_SECRET", kRunSecret}});
  ASSERT_TRUE(p.wait_for_stdout("| ready")) << p.out() << p.err();
  // While the job runs, no command line on this machine carries the secret (`ps` would show it).
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string cmdline = read_file(entry.path().string() + "/cmdline");
    EXPECT_EQ(cmdline.find(kRunSecret), std::string::npos)
        << "in " << entry.path() << ": " << cmdline;
  }
  EXPECT_EQ(p.wait(), 1);
  std::string out = p.out(), err = p.err();
  EXPECT_NE(out.find("token=[secret E2E_SECRET]"), std::string::npos) << out;
  EXPECT_NE(err.find("err [secret E2E_SECRET]"), std::string::npos) << err;
  EXPECT_EQ(out.find(kRunSecret), std::string::npos);
  EXPECT_EQ(err.find(kRunSecret), std::string::npos);
  // Everything burst wrote: logs, reports, the SQLite store, the local cloud's files.
  auto files = files_under(home.state());
  EXPECT_GT(files.size(), 3u);
  for (const auto& f : files) {
    if (f.find("/volumes/") != std::string::npos) continue;  // the user's own data
    EXPECT_EQ(read_file(f).find(kRunSecret), std::string::npos) << "secret found in " << f;
  }
  expect_no_pod_left(out);
}

TEST(E2ERun, MissingRequiredSecretStopsBeforeAnythingIsCreated) {
  BurstHome home;
  home.write("app/README", "x");
  std::string spec = home.write("job.yaml", happy_spec("  true"));
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"run", spec}, &out, &err, {{"E2E_SECRET", ""}}), 2);
  EXPECT_NE(err.find("job.yaml:5:11: secrets[0]: E2E_SECRET is not set in your environment"),
            std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(home.state() + "/local/pods"));
  EXPECT_FALSE(fs::exists(home.state() + "/burst.db"));
}

}  // namespace
}  // namespace burst::testing
