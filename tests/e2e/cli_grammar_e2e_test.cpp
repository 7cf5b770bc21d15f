// One command-line grammar for every command (issue 34): every option takes one value, so options
// and the positional file or job go in any order. A table runs each command with its options
// after the positional arguments and again before them; both must exit with the table's code
// and print the same thing. On main before the fix, `run --provider local FILE --dry-run` exited
// 2 ("file is required": --provider swallowed FILE) and `check --provider runpod FILE` said
// unknown provider "FILE".
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

using nlohmann::json;

std::string command_text(const std::vector<std::string>& args) {
  std::string out = "burst";
  for (const auto& a : args) out += " " + a;
  return out;
}

struct GrammarCase {
  std::vector<std::string> head;         // the command words: {"run"}, {"volumes", "delete"}
  std::vector<std::string> positionals;  // FILE, JOB, NAME
  std::vector<std::string> options;      // each option with its value, in order
  int exit;
};

class CliGrammar : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    home_ = new BurstHome();
    spec_ = home_->write("grammar.yaml",
                         "name: grammar\nresources: {providers: [local]}\n"
                         "run: echo \"A is $A\"\n");
    std::string out, err;
    // One finished job, for the commands that take a job.
    ASSERT_EQ(run_burst(*home_, {"run", spec_, "--yes", "--json"}, &out, &err, env()), 0) << err;
    job_ = json::parse(out).value("job_id", "");
    ASSERT_FALSE(job_.empty()) << out;
  }
  static void TearDownTestSuite() {
    delete home_;
    home_ = nullptr;
  }
  static std::map<std::string, std::string> env() {
    return {{"BURSTD_SOCKET", home_->root() + "/no-burstd.sock"}};
  }
  // Runs args; returns the exit code and stdout.
  static std::pair<int, std::string> run(const std::vector<std::string>& args) {
    std::string out, err;
    int rc = run_burst(*home_, args, &out, &err, env());
    return {rc, out + (rc == 0 ? "" : "\nstderr: " + err)};
  }
  // The newest job (the table's `run --yes` cases add some after the fixture's).
  static std::string latest_job() {
    auto [rc, jobs] = run({"jobs", "--json"});
    return rc == 0 ? json::parse(jobs).at(0).value("job_id", "") : "";
  }
  static BurstHome* home_;
  static std::string spec_, job_;
};
BurstHome* CliGrammar::home_ = nullptr;
std::string CliGrammar::spec_;
std::string CliGrammar::job_;

// --max-runtime (issue 34: the flag that changes a default limit) is the run step's limit: a step
// that would sleep 60 s is stopped after 2 s and the job fails saying so.
TEST_F(CliGrammar, MaxRuntimeFlagLimitsTheRunStep) {
  const std::string slow = home_->write("slow.yaml",
                                        "name: slow\nresources: {providers: [local]}\n"
                                        "run: sleep 60\n");
  const auto start = std::chrono::steady_clock::now();
  auto [rc, out] = run({"run", "--max-runtime", "2s", slow, "--yes", "--json"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("max_runtime"), std::string::npos) << out;
  EXPECT_LT(seconds, 40) << "the 60 s step was not stopped";
}

TEST_F(CliGrammar, EveryCommandTakesItsOptionsBeforeAndAfterItsArguments) {
  const std::string f = spec_, j = job_;
  const std::vector<GrammarCase> cases = {
      {{"run"}, {f}, {"--provider", "local", "--env", "A=1", "--dry-run"}, 0},
      {{"run"}, {f}, {"--env", "A=1", "--env", "B=2", "--dryrun", "-q"}, 0},
      {{"run"}, {f}, {"--secret", "TOKEN=abcdef", "--dry-run", "--json"}, 0},
      {{"run"}, {f}, {"--provider", "local", "--yes", "-q", "--env", "A=7"}, 0},
      {{"plan"}, {f}, {"--provider", "local", "--all"}, 0},
      {{"plan"}, {f}, {"--env", "A=1", "--json", "--format", "burst"}, 0},
      {{"plan"}, {f}, {"--max-runtime", "30m", "--json"}, 0},
      {{"plan"}, {f}, {"--max-runtime", "soon"}, 2},
      {{"validate"}, {f}, {"--env", "A=1", "--json"}, 0},
      {{"convert"}, {f}, {"--env", "A=1"}, 0},
      {{"check"}, {f}, {"--provider", "runpod", "--json"}, 3},  // no API key: 3, not 2
      {{"report"}, {j}, {"--format", "json"}, 0},
      {{"report"}, {j}, {"--json"}, 0},
      {{"logs"}, {j}, {"--json"}, 0},
      {{"status"}, {j}, {"--json"}, 0},
      {{"ssh"}, {j, "gpu"}, {}, 4},  // the job has ended
      {{"submit"}, {f}, {"--json", "--socket", home_->root() + "/none.sock"}, 5},
      {{"cancel"}, {j}, {"--json", "--socket", home_->root() + "/none.sock"}, 5},
      {{"volumes", "delete"}, {"no-such-volume"}, {"--provider", "local", "--yes"}, 4},
      {{"completion"}, {"bash"}, {}, 0},
      {{"help"}, {"run"}, {}, 0},
      {{"jobs"}, {}, {"--limit", "5", "--json"}, 0},
      {{"reap"}, {}, {"--dry-run", "--json"}, 0},
      {{"estimate"}, {}, {"--mode", "infer", "--params", "7B", "--json"}, 0},
      {{"offers"}, {}, {"--provider", "local", "--json"}, 0},
      {{"offers"}, {}, {"--gpus", "NO_SUCH_GPU", "--provider", "local"}, 4},  // as run and plan
      {{"gpus"}, {}, {"--json"}, 0},
      {{"version"}, {}, {"--json"}, 0},
  };
  for (const GrammarCase& c : cases) {
    std::vector<std::string> after = c.head, before = c.head;
    after.insert(after.end(), c.positionals.begin(), c.positionals.end());
    after.insert(after.end(), c.options.begin(), c.options.end());
    before.insert(before.end(), c.options.begin(), c.options.end());
    before.insert(before.end(), c.positionals.begin(), c.positionals.end());
    auto [rc_after, out_after] = run(after);
    EXPECT_EQ(rc_after, c.exit) << command_text(after) << "\n" << out_after;
    if (before == after) continue;
    auto [rc_before, out_before] = run(before);
    EXPECT_EQ(rc_before, c.exit) << command_text(before) << "\n" << out_before;
    // The same command, so the same output (a run's own job id and times aside).
    if (c.head[0] != "run" || c.exit != 0 || out_after.find("job ") != 0) {
      EXPECT_EQ(out_before, out_after) << command_text(before) << "\nvs " << command_text(after);
    }
  }
}

// A repeatable option takes one value each time, or a comma list: both mean the same.
TEST_F(CliGrammar, ARepeatedOptionAndACommaListAreTheSame) {
  auto [rc_list, list] = run({"plan", "--provider", "local,runpod", spec_, "--json"});
  auto [rc_repeat, repeat] = run({"plan", "--provider", "local", "--provider", "runpod", spec_});
  auto [rc_repeat_json, repeat_json] =
      run({"plan", spec_, "--provider", "local", "--provider", "runpod", "--json"});
  EXPECT_EQ(rc_list, 0) << list;
  EXPECT_EQ(rc_repeat, 0) << repeat;
  EXPECT_EQ(list, repeat_json);
  EXPECT_NE(repeat.find("runpod"), std::string::npos) << repeat;
}

// Every --json names a job's things with the same keys.
TEST_F(CliGrammar, EveryJsonNamesAJobWithTheSameKeys) {
  auto [rc_jobs, jobs] = run({"jobs", "--json"});
  auto [rc_status, status] = run({"status", latest_job(), "--json"});
  ASSERT_EQ(rc_jobs, 0) << jobs;
  ASSERT_EQ(rc_status, 0) << status;
  const json from_jobs = json::parse(jobs).at(0), from_status = json::parse(status);
  for (const char* key : {"job_id", "state", "started", "finished", "seconds", "usd"}) {
    EXPECT_TRUE(from_jobs.contains(key)) << key << " in jobs --json: " << jobs;
    EXPECT_TRUE(from_status.contains(key)) << key << " in status --json: " << status;
    EXPECT_EQ(from_jobs[key], from_status[key]) << key;
  }
  auto [rc_logs, logs] = run({"logs", "--json"});
  ASSERT_EQ(rc_logs, 0) << logs;
  EXPECT_EQ(json::parse(logs).value("job_id", ""), latest_job());
  EXPECT_EQ(json::parse(logs).value("state", ""), "succeeded");
}

// A command that takes a job takes the latest when none is named; status JOB, logs and report
// need no daemon.
TEST_F(CliGrammar, AJobDefaultsToTheLatestAndNeedsNoDaemon) {
  const std::string latest = latest_job();
  auto [rc_named, named] = run({"logs", latest});
  auto [rc_default, by_default] = run({"logs"});
  EXPECT_EQ(rc_named, 0) << named;
  EXPECT_EQ(rc_default, 0) << by_default;
  EXPECT_EQ(named, by_default);
  EXPECT_NE(by_default.find("A is"), std::string::npos) << by_default;
  auto [rc_status, status] = run({"status", job_});
  EXPECT_EQ(rc_status, 0) << status;
  EXPECT_NE(status.find("job " + job_ + " (grammar): succeeded"), std::string::npos) << status;
  EXPECT_NE(status.find("pod local "), std::string::npos) << status;
  auto [rc_report, report] = run({"report"});
  EXPECT_EQ(rc_report, 0) << report;
  EXPECT_NE(report.find("# burst job " + latest), std::string::npos) << report;
}

// -q: stdout is the outcome, one line, even for a dry run.
TEST_F(CliGrammar, QuietPrintsOnlyTheOutcome) {
  auto [rc, out] = run({"run", "-q", spec_, "--dry-run"});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.rfind("dry run: local local x1", 0), 0u) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

// --dry-run plans offline wherever `plan` does: no API key, the offline table, exit 0.
TEST_F(CliGrammar, DryRunWorksOfflineAsPlanDoes) {
  auto [rc_plan, plan] = run({"plan", spec_, "--provider", "runpod"});
  auto [rc_dry, dry] = run({"run", "--provider", "runpod", spec_, "--dry-run"});
  EXPECT_EQ(rc_plan, 0) << plan;
  EXPECT_EQ(rc_dry, 0) << dry;
  EXPECT_NE(dry.find("GPU pod: runpod "), std::string::npos) << dry;
  EXPECT_NE(dry.find("dry run: nothing was created"), std::string::npos) << dry;
}

// `burst --help` lists the exit codes every command returns, from the one table.
TEST_F(CliGrammar, HelpListsTheExitCodeTable) {
  auto [rc, help] = run({"--help"});
  EXPECT_EQ(rc, 0);
  for (const char* line : {"  0    success", "  2    bad arguments or a bad spec",
                           "  4    the named job, pod, volume or file does not exist",
                           "  5    burstd does not answer", "  130  interrupted"})
    EXPECT_NE(help.find(line), std::string::npos) << line << "\n" << help;
}

// `burst run -- CMD`: a launch without YAML, its spec printable, run like any other job.
TEST_F(CliGrammar, RunWithoutYamlBuildsTheSpecAndRunsIt) {
  auto [rc_spec, spec] = run({"run", "--gpus", "L4", "--print-spec", "--", "python3", "train.py"});
  EXPECT_EQ(rc_spec, 0) << spec;
  EXPECT_NE(spec.find("name: python3\n"), std::string::npos) << spec;
  EXPECT_NE(spec.find("gpus: [L4]"), std::string::npos) << spec;
  EXPECT_NE(spec.find("run: \"'python3' 'train.py'\""), std::string::npos) << spec;
  const std::string dir = home_->work() + "/cmd-dir";
  home_->write("cmd-dir/hello.txt", "hello from the workdir\n");
  auto [rc, out] =
      run({"run", "--provider", "local", "--workdir", dir, "--yes", "--", "cat hello.txt"});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("hello from the workdir"), std::string::npos) << out;
  auto [rc_none, none] = run({"run", "--gpus", "L4"});
  EXPECT_EQ(rc_none, 2) << none;
}

}  // namespace
}  // namespace burst::testing
