// burstd's API handlers called in-process (no socket): submit, list, status with phases, logs,
// cancel, pods, reap, and the errors a client sees. One test goes through the real Unix socket.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "client/daemon_client.h"
#include "daemon/api.h"
#include "daemon/socket_server.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_job_launcher.h"
#include "fakes/temp_dir.h"
#include "report/job_json.h"

namespace burst::daemon {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// What burst's clients send with every POST (without it: 415).
const std::map<std::string, std::string> kApiTestJson = {{"content-type", "application/json"}};

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(":memory:").value();
    launcher_ = std::make_unique<FakeJobLauncher>(*store_);
    launcher_->block = true;
    config_.logs_dir = dir_.path() + "/logs";
    std::filesystem::create_directories(config_.logs_dir);
    SchedulerOptions opt;
    opt.max_concurrent = 1;
    sched_ = std::make_unique<Scheduler>(clock_, *store_, *launcher_, opt);
    api_ = std::make_unique<Api>(*sched_, *store_, config_, [this] {
      ++reaps_;
      return std::vector<PodAction>{{"local", "local-1", "j1", "deleted (confirmed)"}};
    });
  }
  void TearDown() override {
    launcher_->release_all();
    sched_.reset();
  }
  ApiResponse call(const std::string& method, const std::string& path, const std::string& body = "",
                   std::map<std::string, std::string> query = {}) {
    return api_->handle({method, path, std::move(query), body, kApiTestJson});
  }
  std::string submit_inline(const std::string& yaml) {
    ApiResponse r = call("POST", "/v1/jobs", json{{"spec", yaml}, {"path", "/w/job.yaml"}}.dump());
    EXPECT_EQ(r.status, 201) << r.body;
    return json::parse(r.body).value("id", "");
  }

  TempDir dir_;
  FakeClock clock_;
  Config config_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<FakeJobLauncher> launcher_;
  std::unique_ptr<Scheduler> sched_;
  std::unique_ptr<Api> api_;
  int reaps_ = 0;
};

TEST_F(ApiTest, SubmitQueuesThenStatusShowsRunningWithPhases) {
  std::string id = submit_inline("name: hello\nrun: echo hi\n");
  ASSERT_FALSE(id.empty());
  json queued = json::parse(call("GET", "/v1/jobs/" + id).body);
  EXPECT_EQ(queued["state"], "queued");
  EXPECT_EQ(queued["pipeline"], "hello");

  sched_->tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  json running = json::parse(call("GET", "/v1/jobs/" + id).body);
  EXPECT_EQ(running["state"], "running");
  ASSERT_EQ(running["phases"].size(), 1u);
  EXPECT_EQ(running["phases"][0]["phase"], "run");

  json list = json::parse(call("GET", "/v1/jobs").body);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], id);
  EXPECT_EQ(list[0]["reason"], "submitted");

  launcher_->release(id);
  ASSERT_TRUE(sched_->wait_idle(seconds(10)));
  json done = json::parse(call("GET", "/v1/jobs/" + id).body);
  EXPECT_EQ(done["state"], "succeeded");
  EXPECT_EQ(done["phases"][0]["outcome"], "ok");
  // The same object `burst status JOB --json` builds from the store without a daemon
  // (report/job_json.h), plus this API's "created".
  auto stored = job_detail_value(*store_, id, SystemClock().now());
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  json expected = json::parse(stored->dump());
  expected["created"] = expected["started"];
  EXPECT_EQ(done, expected);
}

TEST_F(ApiTest, InvalidSpecIsRefusedWithEveryErrorAndItsPosition) {
  ApiResponse r = call("POST", "/v1/jobs",
                       json{{"spec", "name: x\nrun: echo\nschedule:\n  cron: \"0 24 * * *\"\n"},
                            {"path", "/w/x.yaml"}}
                           .dump());
  EXPECT_EQ(r.status, 400);
  json body = json::parse(r.body);
  EXPECT_EQ(body["error"], "invalid spec");
  ASSERT_EQ(body["errors"].size(), 1u);
  EXPECT_EQ(body["errors"][0], "/w/x.yaml:4:12: schedule.cron: hour: 24 is out of range 0-23");

  EXPECT_EQ(call("POST", "/v1/jobs", "not json").status, 400);
  EXPECT_EQ(call("POST", "/v1/jobs", json{{"path", "relative.yaml"}}.dump()).status, 400);
  EXPECT_EQ(call("POST", "/v1/jobs", json{{"path", dir_.path() + "/missing.yaml"}}.dump()).status,
            400);
}

TEST_F(ApiTest, SubmitByPathReadsTheFile) {
  dir_.write("job.yaml", "name: from-file\nrun: echo hi\n");
  ApiResponse r = call("POST", "/v1/jobs", json{{"path", dir_.path() + "/job.yaml"}}.dump());
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(sched_->jobs().at(0).pipeline, "from-file");
}

TEST_F(ApiTest, LogReadsFromAnOffsetAndSaysWhenTheJobHasEnded) {
  std::string id = submit_inline("name: logs\nrun: echo hi\n");
  sched_->tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  std::ofstream(config_.logs_dir + "/" + id + ".log") << "line one\nline two\n";
  ApiResponse r = call("GET", "/v1/jobs/" + id + "/log", "", {{"offset", "5"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "one\nline two\n");
  EXPECT_EQ(r.headers["X-Burst-Log-Offset"], "18");
  EXPECT_EQ(r.headers["X-Burst-Job-Finished"], "0");
  launcher_->release(id);
  ASSERT_TRUE(sched_->wait_idle(seconds(10)));
  LogChunk end = api_->read_log(id, 18);
  EXPECT_TRUE(end.data.empty());
  EXPECT_TRUE(end.finished);
  EXPECT_EQ(call("GET", "/v1/jobs/nosuchjob/log").status, 404);
}

TEST_F(ApiTest, CancelStopsARunningJob) {
  std::string id = submit_inline("name: long\nrun: sleep 100\n");
  sched_->tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  ApiResponse r = call("POST", "/v1/jobs/" + id + "/cancel");
  EXPECT_EQ(r.status, 202);
  ASSERT_TRUE(sched_->wait_idle(seconds(10)));
  EXPECT_EQ(json::parse(call("GET", "/v1/jobs/" + id).body)["state"], "interrupted");
  EXPECT_EQ(call("POST", "/v1/jobs/" + id + "/cancel").status, 404) << "nothing left to cancel";
}

TEST_F(ApiTest, PodsReapHealthAndUnknownEndpoints) {
  JobRecord job;
  job.id = "j1";
  job.pipeline = "p";
  job.state = JobState::kRunning;
  ASSERT_TRUE(store_->create_job(job).ok());
  PodRecord pod;
  pod.job_id = "j1";
  pod.provider = "local";
  pod.role = "gpu";
  pod.name = "burst-j1-gpu";
  pod.pod_id = "local-1";
  pod.state = PodRecordState::kAlive;
  ASSERT_TRUE(store_->add_pod(pod).ok());
  json pods = json::parse(call("GET", "/v1/pods").body);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0]["pod"], "local-1");

  json reaped = json::parse(call("POST", "/v1/reap").body);
  EXPECT_EQ(reaps_, 1);
  EXPECT_EQ(reaped[0]["outcome"], "deleted (confirmed)");

  json health = json::parse(call("GET", "/v1/health").body);
  EXPECT_EQ(health["draining"], false);
  EXPECT_EQ(call("GET", "/v1/nope").status, 404);
  EXPECT_EQ(call("GET", "/v1/jobs/..%2Fetc").status, 400);
  EXPECT_EQ(call("GET", "/v1/jobs/unknown-id").status, 404);
}

TEST_F(ApiTest, SocketIsOwnerOnlyAndServesTheSameHandlers) {
  const std::string path = dir_.path() + "/d.sock";
  SocketServer server(*api_);
  ASSERT_TRUE(server.start(path).ok());
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));

  DaemonClient client(path);
  auto health = client.get("/v1/health");
  ASSERT_TRUE(health.ok()) << health.error().message;
  EXPECT_EQ(health->status, 200);
  auto sub =
      client.post("/v1/jobs", json{{"spec", "name: s\nrun: echo\n"}, {"path", "/w/s.yaml"}}.dump());
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(sub->status, 201) << sub->body;

  // Follow: the stream ends once the job has ended and the log is read to its end.
  std::string id = json::parse(sub->body)["id"];
  sched_->tick();
  ASSERT_TRUE(launcher_->wait_started(1));
  std::ofstream(config_.logs_dir + "/" + id + ".log") << "hello from the job\n";
  launcher_->release(id);
  std::string got;
  auto followed = client.stream("/v1/jobs/" + id + "/log?follow=1&offset=0",
                                [&](const std::string& d) { got += d; });
  ASSERT_TRUE(followed.ok());
  EXPECT_EQ(*followed, 200);
  EXPECT_EQ(got, "hello from the job\n");

  SocketServer second(*api_);
  EXPECT_EQ(second.start(path).error().code, ErrorCode::kInvalid) << "one burstd per socket";
  server.stop();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(client.get("/v1/health").error().code, ErrorCode::kConnection);
}

// burstd given a device or a fifo as the spec's path answers at once instead of reading for ever.
TEST_F(ApiTest, ASpecPathThatIsNotASmallRegularFileIsRefusedAtOnce) {
  const std::string fifo = dir_.path() + "/spec.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/zero"), fifo}) {
    ApiResponse r = call("POST", "/v1/jobs", json{{"path", path}}.dump());
    EXPECT_EQ(r.status, 400) << r.body;
    json body = json::parse(r.body);
    ASSERT_EQ(body["errors"].size(), 1u) << r.body;
    EXPECT_EQ(body["errors"][0], path + ": not a regular file");
  }
}

// Issue 29: the alias bomb as an inline spec (one 100 KB anchored scalar aliased from 20,000 env
// keys; 2 GB of strings if copied) is refused with 400 by the same bounded YAML reader.
TEST_F(ApiTest, AnAliasBombSpecIsRefusedWith400AtOnce) {
  std::string yaml =
      "name: bomb\nrun: echo hi\nenv:\n  BIG: &b \"" + std::string(100000, 'x') + "\"\n";
  for (int i = 0; i < 20000; ++i) yaml += "  K" + std::to_string(10000 + i) + ": *b\n";
  const auto start = std::chrono::steady_clock::now();
  ApiResponse r = call("POST", "/v1/jobs", json{{"spec", yaml}, {"path", "/w/bomb.yaml"}}.dump());
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(10));  // it took 32 s before
  EXPECT_EQ(r.status, 400) << r.body.substr(0, 300);
  json body = json::parse(r.body);
  ASSERT_EQ(body["errors"].size(), 1u);
  EXPECT_EQ(body["errors"][0].get<std::string>().rfind("/w/bomb.yaml:18:11: YAML limit: ", 0), 0u)
      << body["errors"][0];
  EXPECT_TRUE(sched_->jobs().empty());
}

}  // namespace
}  // namespace burst::daemon
