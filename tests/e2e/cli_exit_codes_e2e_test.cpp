// The exit-code table (README, "Exit codes"; src/cli/exit_codes.h) for every subcommand, by
// running the real `burst`: 0 ok, 1 job failed, 2 usage/spec, 3 config/credentials, 4 not found,
// 5 daemon unreachable (130 interrupted: E2EInterrupt.*). In --json mode an error is one object,
// {"error": {"code", "message", "exit"}}, on stdout.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

using nlohmann::json;

struct Case {
  std::vector<std::string> args;
  int exit;
};

std::string joined(const std::vector<std::string>& args) {
  std::string out = "burst";
  for (const auto& a : args) out += " " + a;
  return out;
}

class E2EExitCodes : public ::testing::Test {
 protected:
  void SetUp() override {
    good_ = home_.write("good.yaml", "name: good\nrun: echo hi\n");
    bad_ = home_.write("bad.yaml", "name: bad\nrun: echo hi\nresources: {gpu_count: many}\n");
    missing_ = home_.work() + "/missing.yaml";
    no_socket_ = {{"BURSTD_SOCKET", home_.root() + "/no-burstd.sock"}};
  }
  void expect_all(const std::vector<Case>& cases,
                  const std::map<std::string, std::string>& env = {}) {
    for (const Case& c : cases) {
      std::string out, err;
      EXPECT_EQ(run_burst(home_, c.args, &out, &err, env), c.exit)
          << joined(c.args) << "\nstdout: " << out << "\nstderr: " << err;
    }
  }
  BurstHome home_;
  std::string good_, bad_, missing_;
  std::map<std::string, std::string> no_socket_;
};

// Every subcommand, each with the codes it can produce without a cloud or a running job.
TEST_F(E2EExitCodes, EverySubcommandFollowsTheTable) {
  expect_all({
      // 0: success.
      {{"validate", good_}, 0},
      {{"plan", good_}, 0},
      {{"convert", good_}, 0},
      {{"run", good_, "--dryrun"}, 0},
      {{"gpus"}, 0},
      {{"jobs"}, 0},
      {{"estimate", "--mode", "infer", "--params", "7B"}, 0},
      {{"reap", "--dry-run"}, 0},
      {{"volumes"}, 0},
      {{"completion", "bash"}, 0},
      {{"version"}, 0},
      {{"help", "run"}, 0},
      {{"__complete", "providers"}, 0},
      // 2: bad arguments or a bad spec.
      {{"launch"}, 2},
      {{"run"}, 2},
      {{"run", bad_}, 2},
      {{"run", good_, "--gpus", "NO_SUCH_GPU"}, 2},
      {{"run", good_, "--gpus", "RTX_4090:x"}, 2},
      {{"run", good_, "--provider", "local,nope"}, 2},
      {{"run", good_, "--secret", "BURST_TEST_UNSET_SECRET_XYZ"}, 2},
      {{"run", good_, "--detach", "--gpus", "A100"}, 2},
      {{"validate", bad_}, 2},
      {{"plan", bad_}, 2},
      {{"convert", bad_}, 2},
      {{"check", bad_}, 2},
      {{"check", "--provider", "nope"}, 2},
      {{"estimate"}, 2},
      {{"report", "--format", "xml"}, 2},
      {{"jobs", "--limit", "many"}, 2},
      {{"gpus", "--bogus"}, 2},
      {{"offers", "--bogus"}, 2},
      {{"reap", "--bogus"}, 2},
      {{"volumes", "delete"}, 2},
      {{"submit"}, 2},
      {{"status", "--bogus"}, 2},
      {{"logs", "../etc"}, 2},
      {{"dashboard", "--port", "x"}, 2},
      {{"exec", "20260101-000000-abcdef"}, 2},
      {{"completion", "tcsh"}, 2},
      {{"help", "launch"}, 2},
      // 4: the named file, job or volume does not exist.
      {{"validate", missing_}, 4},
      {{"plan", missing_}, 4},
      {{"run", missing_}, 4},
      {{"submit", missing_}, 4},  // the same code as run's, before burstd is asked
      {{"logs"}, 4},              // no job named, and none yet
      {{"ssh"}, 4},
      {{"status", "20260101-000000-abcdef"}, 4},
      {{"convert", missing_}, 4},
      {{"check", missing_}, 4},
      {{"report"}, 4},
      {{"report", "20260101-000000-abcdef"}, 4},
      {{"logs", "20260101-000000-abcdef"}, 4},
      {{"ssh", "20260101-000000-abcdef"}, 4},
      {{"exec", "20260101-000000-abcdef", "--", "true"}, 4},
      {{"volumes", "delete", "no-such-volume", "--yes"}, 4},
      {{"offers", "--gpu", "NO_SUCH_GPU"}, 4},
  });
  // 5: no burstd answers on its socket.
  expect_all({{{"status"}, 5},
              {{"submit", good_}, 5},
              {{"cancel", "20260101-000000-abcdef"}, 5},
              {{"cancel"}, 5},
              {{"dashboard"}, 5},
              {{"logs", "20260101-000000-abcdef", "--socket", home_.root() + "/no.sock"}, 5},
              {{"run", good_, "--detach"}, 5}},
             no_socket_);
  // 1: the job failed.
  const std::string failing =
      home_.write("fail.yaml", "name: fails\nresources: {providers: [local]}\nrun: exit 3\n");
  expect_all({{{"run", failing}, 1}});
}

TEST_F(E2EExitCodes, ABrokenConfigIsExit3ForEveryCommandThatReadsIt) {
  std::filesystem::create_directories(home_.root() + "/config");
  std::ofstream(home_.root() + "/config/config.yaml") << "providers: [unclosed\n";
  std::vector<Case> cases;
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"run", good_},
                                             {"plan", good_},
                                             {"jobs"},
                                             {"gpus"},
                                             {"estimate", "--mode", "infer", "--params", "7B"},
                                             {"offers"},
                                             {"reap"},
                                             {"report"},
                                             {"volumes"},
                                             {"check"},
                                             {"logs", "20260101-000000-abcdef"},
                                             {"ssh", "20260101-000000-abcdef"},
                                             {"exec", "20260101-000000-abcdef", "--", "true"},
                                             {"__complete", "jobs"}})
    cases.push_back({args, 3});
  expect_all(cases);
}

// --json: the error is an object on stdout, its code the table's name for the exit code.
TEST_F(E2EExitCodes, JsonModeErrorsAreObjectsWithTheCode) {
  struct JsonCase {
    std::vector<std::string> args;
    int exit;
    std::string code;
  };
  const std::vector<JsonCase> cases = {
      {{"validate", "--json", missing_}, 4, "not_found"},
      {{"plan", "--json", bad_}, 2, "usage"},
      {{"run", "--json", good_, "--gpus", "NO_SUCH_GPU"}, 2, "usage"},
      {{"logs", "--json", "20260101-000000-abcdef"}, 4, "not_found"},
      {{"status", "--json"}, 5, "daemon_unreachable"},
      {{"cancel", "--json", "20260101-000000-abcdef"}, 5, "daemon_unreachable"},
      {{"offers", "--json", "--provider", "nope,local"}, 2, "usage"},
  };
  for (const JsonCase& c : cases) {
    std::string out, err;
    EXPECT_EQ(run_burst(home_, c.args, &out, &err, no_socket_), c.exit) << joined(c.args) << err;
    json j = json::parse(out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << joined(c.args) << ": " << out;
    EXPECT_EQ(j["error"]["code"], c.code) << joined(c.args) << ": " << out;
    EXPECT_EQ(j["error"]["exit"], c.exit) << out;
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty()) << out;
  }
  // A spec's errors: the first as the message, each with its line in validate's answer.
  std::string out;
  EXPECT_EQ(run_burst(home_, {"validate", "--json", bad_}, &out, nullptr), 2);
  json v = json::parse(out);
  EXPECT_EQ(v["valid"], false);
  EXPECT_EQ(v["error"]["code"], "usage");
  EXPECT_EQ(v["errors"][0]["line"], 3) << out;
  std::filesystem::create_directories(home_.root() + "/config");
  std::ofstream(home_.root() + "/config/config.yaml") << "providers: [unclosed\n";
  EXPECT_EQ(run_burst(home_, {"jobs", "--json"}, &out, nullptr), 3);
  EXPECT_EQ(json::parse(out)["error"]["code"], "config") << out;
}

}  // namespace
}  // namespace burst::testing
