// The SQLite Store: round trips, phase and pod life cycles, durability, schema versioning, file
// permissions, and two instances sharing one file. Every test works in its own mkdtemp directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "burst/provider.h"
#include "burst/store.h"
#include "store/sqlite_schema.h"

namespace burst {
namespace {

namespace fs = std::filesystem;

// user_version is the big-endian 4-byte integer at offset 60 of the database file header
// (https://www.sqlite.org/fileformat.html); reading it directly keeps sqlite3.h out of the tests.
constexpr std::streamoff kUserVersionOffset = 60;

uint32_t read_user_version(const fs::path& db) {
  std::ifstream in(db, std::ios::binary);
  in.seekg(kUserVersionOffset);
  std::array<unsigned char, 4> b{};
  in.read(reinterpret_cast<char*>(b.data()), 4);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

void write_user_version(const fs::path& db, uint32_t v) {
  std::fstream io(db, std::ios::binary | std::ios::in | std::ios::out);
  io.seekp(kUserVersionOffset);
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  io.write(b, 4);
}

JobRecord make_job(const std::string& id, int64_t created_ms) {
  JobRecord j;
  j.id = id;
  j.pipeline = "finetune";
  j.spec_path = "/home/u/specs/finetune.yaml";
  j.state = JobState::kRunning;
  j.phase = "provision";
  j.provider = "runpod";
  j.error = "";
  j.estimate_json = R"({"usd":1.25,"minutes":30})";
  j.report_path = "";
  j.created_ms = created_ms;
  j.finished_ms = 0;
  return j;
}

PodRecord make_pod(const std::string& job_id, const std::string& name, int64_t created_ms) {
  PodRecord p;
  p.job_id = job_id;
  p.provider = "runpod";
  p.role = "gpu";
  p.name = name;
  p.gpu_type = "H100 80GB";
  p.gpu_count = 2;
  p.usd_per_hour = 4.78;
  p.price_source = "live offer";
  p.state = PodRecordState::kCreating;
  p.created_ms = created_ms;
  return p;
}

// Every field, so EXPECT_EQ on these compares (and prints) whole records.
auto fields(const JobRecord& j) {
  return std::tie(j.id, j.pipeline, j.spec_path, j.state, j.phase, j.provider, j.error,
                  j.estimate_json, j.report_path, j.created_ms, j.finished_ms, j.owner_pid,
                  j.owner_start);
}

auto fields(const PodRecord& p) {
  return std::tie(p.row_id, p.job_id, p.provider, p.role, p.name, p.pod_id, p.gpu_type, p.gpu_count,
                  p.usd_per_hour, p.price_source, p.state, p.host_key, p.created_ms, p.deleted_ms);
}

void expect_job_eq(const JobRecord& a, const JobRecord& b) { EXPECT_EQ(fields(a), fields(b)); }

// A REAL column stores the double's 8 bytes, so the price comes back exactly.
void expect_pod_eq(const PodRecord& a, const PodRecord& b) { EXPECT_EQ(fields(a), fields(b)); }

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "burst-store-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    db_path_ = dir_ / "state" / "burst.db";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::unique_ptr<Store> open() {
    Result<std::unique_ptr<Store>> s = open_sqlite_store(db_path_.string());
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return s.ok() ? std::move(s).value() : nullptr;
  }

  fs::path dir_;
  fs::path db_path_;
};

TEST_F(StoreTest, JobRoundTripAndUpdate) {
  auto store = open();
  ASSERT_TRUE(store);
  JobRecord job = make_job("20261122-070941-ab12cd", 1700000000123);
  ASSERT_TRUE(store->create_job(job).ok());
  Result<JobRecord> got = store->get_job(job.id);
  ASSERT_TRUE(got.ok());
  expect_job_eq(*got, job);

  job.state = JobState::kFailed;
  job.phase = "run";
  job.provider = "vast";
  job.error = "exit status 3; quote ' and \"double\"";
  job.estimate_json = "{}";
  job.report_path = "/tmp/r.json";
  job.finished_ms = 1700000099999;
  job.owner_pid = 4242;
  job.owner_start = "boot-id/123456";
  ASSERT_TRUE(store->update_job(job).ok());
  got = store->get_job(job.id);
  ASSERT_TRUE(got.ok());
  expect_job_eq(*got, job);
}

TEST_F(StoreTest, UnknownJobIsNotFound) {
  auto store = open();
  ASSERT_TRUE(store);
  Result<JobRecord> got = store->get_job("nope");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(got.error().message, "store: no job with id \"nope\"");
  Status updated = store->update_job(make_job("nope", 1));
  ASSERT_FALSE(updated.ok());
  EXPECT_EQ(updated.error().code, ErrorCode::kNotFound);
}

TEST_F(StoreTest, SqliteErrorsAreInternalWithOperation) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  Status dup = store->create_job(make_job("j", 2));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, ErrorCode::kInternal);
  EXPECT_EQ(dup.error().message.rfind("store: create job: ", 0), 0u) << dup.error().message;
  EXPECT_NE(dup.error().message.find("UNIQUE"), std::string::npos);
  // Foreign keys are on: a pod must belong to a known job.
  Result<int64_t> orphan = store->add_pod(make_pod("no-such-job", "p", 1));
  ASSERT_FALSE(orphan.ok());
  EXPECT_EQ(orphan.error().message, "store: add pod: FOREIGN KEY constraint failed");
}

TEST_F(StoreTest, RecentJobsNewestFirstWithLimit) {
  auto store = open();
  ASSERT_TRUE(store);
  for (int64_t t : {300, 100, 500, 200, 400}) {
    ASSERT_TRUE(store->create_job(make_job("job-" + std::to_string(t), t)).ok());
  }
  Result<std::vector<JobRecord>> jobs = store->recent_jobs(3);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ((*jobs)[0].id, "job-500");
  EXPECT_EQ((*jobs)[1].id, "job-400");
  EXPECT_EQ((*jobs)[2].id, "job-300");
  jobs = store->recent_jobs(10);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), 5u);
  EXPECT_EQ(jobs->back().id, "job-100");
}

TEST_F(StoreTest, PhasesInOrderWithOpenAndClosedRows) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  ASSERT_TRUE(store->begin_phase("j", Phase::kProvision, 10).ok());
  ASSERT_TRUE(store->end_phase("j", Phase::kProvision, 20, Outcome::kOk, "2 pods").ok());
  ASSERT_TRUE(store->begin_phase("j", Phase::kSync, 20).ok());
  ASSERT_TRUE(store->begin_phase("j", Phase::kRun, 30).ok());
  ASSERT_TRUE(store->end_phase("j", Phase::kSync, 40, Outcome::kFailed, "rsync exit 23").ok());

  Result<std::vector<PhaseRecord>> phases = store->phases("j");
  ASSERT_TRUE(phases.ok());
  ASSERT_EQ(phases->size(), 3u);
  const PhaseRecord& p0 = (*phases)[0];
  EXPECT_EQ(p0.job_id, "j");
  EXPECT_EQ(p0.phase, Phase::kProvision);
  EXPECT_EQ(p0.started_ms, 10);
  EXPECT_EQ(p0.ended_ms, 20);
  EXPECT_EQ(p0.outcome, Outcome::kOk);
  EXPECT_EQ(p0.detail, "2 pods");
  EXPECT_EQ((*phases)[1].phase, Phase::kSync);
  EXPECT_EQ((*phases)[1].ended_ms, 40);
  EXPECT_EQ((*phases)[1].outcome, Outcome::kFailed);
  EXPECT_EQ((*phases)[1].detail, "rsync exit 23");
  EXPECT_EQ((*phases)[2].phase, Phase::kRun);
  EXPECT_EQ((*phases)[2].started_ms, 30);
  EXPECT_EQ((*phases)[2].ended_ms, 0);
  EXPECT_EQ((*phases)[2].outcome, std::nullopt);
}

TEST_F(StoreTest, EndPhaseWithoutBeginIsNotFound) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  Status ended = store->end_phase("j", Phase::kRun, 5, Outcome::kOk, "");
  ASSERT_FALSE(ended.ok());
  EXPECT_EQ(ended.error().code, ErrorCode::kNotFound);
  // A closed row is not open any more: ending it twice is also kNotFound.
  ASSERT_TRUE(store->begin_phase("j", Phase::kRun, 5).ok());
  ASSERT_TRUE(store->end_phase("j", Phase::kRun, 0, Outcome::kOk, "").ok());
  ended = store->end_phase("j", Phase::kRun, 7, Outcome::kOk, "");
  ASSERT_FALSE(ended.ok());
  EXPECT_EQ(ended.error().code, ErrorCode::kNotFound);
}

TEST_F(StoreTest, PodLifecycleAndLivePods) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  PodRecord pod = make_pod("j", "burst-j-gpu-0", 100);
  Result<int64_t> row = store->add_pod(pod);
  ASSERT_TRUE(row.ok());
  pod.row_id = *row;
  Result<std::vector<PodRecord>> pods = store->pods_of_job("j");
  ASSERT_TRUE(pods.ok());
  ASSERT_EQ(pods->size(), 1u);
  expect_pod_eq((*pods)[0], pod);
  EXPECT_EQ((*pods)[0].pod_id, "");
  EXPECT_EQ((*pods)[0].state, PodRecordState::kCreating);

  pod.pod_id = "abc123xyz";
  pod.state = PodRecordState::kAlive;
  pod.host_key = "ssh-ed25519 AAAAC3Nza...";
  ASSERT_TRUE(store->update_pod(pod).ok());
  pods = store->pods_of_job("j");
  ASSERT_TRUE(pods.ok());
  ASSERT_EQ(pods->size(), 1u);
  expect_pod_eq((*pods)[0], pod);

  PodRecord missing = pod;
  missing.row_id = pod.row_id + 1000;
  EXPECT_EQ(store->update_pod(missing).error().code, ErrorCode::kNotFound);
}

TEST_F(StoreTest, LivePodsExcludeDeletedAndCreateFailedOldestFirst) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  struct Case {
    const char* name;
    const char* state;
    int64_t created_ms;
  };
  const Case cases[] = {{"c", "deleting", 300},     {"a", "alive", 100},    {"d", "deleted", 50},
                        {"e", "create-failed", 60}, {"b", "creating", 200}, {"a2", "alive", 100}};
  for (const Case& c : cases) {
    PodRecord p = make_pod("j", c.name, c.created_ms);
    p.state = *pod_record_state_from_string(c.state);
    ASSERT_TRUE(store->add_pod(p).ok());
  }
  Result<std::vector<PodRecord>> live = store->live_pods();
  ASSERT_TRUE(live.ok());
  std::vector<std::string> names;
  for (const PodRecord& p : *live) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "a2", "b", "c"}));
  Result<std::vector<PodRecord>> all = store->pods_of_job("j");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 6u);
}

// States are typed in memory (burst/states.h) but stored as the same text as always, so a
// database written before they were typed reads unchanged; a state this burst does not know is
// an error that names the row, never a silent default.
TEST_F(StoreTest, StatesAreStoredAsTheirStringsAndUnknownOnesAreErrorsNamingTheRow) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j-old", 1)).ok());
  PodRecord pod = make_pod("j-old", "p", 1);
  pod.state = PodRecordState::kCreateFailed;
  Result<int64_t> row = store->add_pod(pod);
  ASSERT_TRUE(row.ok());

  auto db = sqlite::open_database(db_path_.string());
  ASSERT_TRUE(db.ok());
  auto text_of = [&](const char* sql) {
    auto s = sqlite::Stmt::prepare(db->get(), sql, "read");
    EXPECT_TRUE(s.ok());
    Result<bool> r = s->step();
    EXPECT_TRUE(r.ok() && *r);
    return s->text(0);
  };
  EXPECT_EQ(text_of("SELECT state FROM jobs WHERE id = 'j-old'"), "running");
  EXPECT_EQ(text_of("SELECT state FROM pods"), "create-failed");

  // What an older burst wrote reads back as the enum.
  ASSERT_TRUE(sqlite::exec(db->get(), "UPDATE jobs SET state = 'interrupted'", "edit").ok());
  ASSERT_TRUE(sqlite::exec(db->get(), "UPDATE pods SET state = 'deleting'", "edit").ok());
  EXPECT_EQ(store->get_job("j-old")->state, JobState::kInterrupted);
  EXPECT_EQ(store->pods_of_job("j-old")->at(0).state, PodRecordState::kDeleting);

  // What it does not know is refused, by every reader of the row.
  ASSERT_TRUE(sqlite::exec(db->get(), "UPDATE jobs SET state = 'paused'", "edit").ok());
  ASSERT_TRUE(sqlite::exec(db->get(), "UPDATE pods SET state = 'hibernating'", "edit").ok());
  Result<JobRecord> job = store->get_job("j-old");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(job.error().message,
            "store: job \"j-old\" has unknown state \"paused\" (written by a newer burst?)");
  Result<std::vector<JobRecord>> recent = store->recent_jobs(10);
  ASSERT_FALSE(recent.ok());
  EXPECT_EQ(recent.error().message, job.error().message);
  EXPECT_FALSE(store->jobs_between(0, 100).ok());

  const std::string pod_error = "store: pod row " + std::to_string(*row) +
                                " (job \"j-old\") has unknown state \"hibernating\" (written by "
                                "a newer burst?)";
  Result<std::vector<PodRecord>> pods = store->pods_of_job("j-old");
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(pods.error().message, pod_error);
  ASSERT_FALSE(store->live_pods().ok());
  EXPECT_EQ(store->live_pods().error().message, pod_error);
  EXPECT_FALSE(store->pods_of_jobs_between(0, 100).ok());
}

TEST_F(StoreTest, PhasesAreStoredAsTheirNamesAndUnknownOnesAreErrorsNamingTheJob) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  ASSERT_TRUE(store->begin_phase("j", Phase::kDeleteGpu, 10).ok());
  ASSERT_TRUE(store->end_phase("j", Phase::kDeleteGpu, 20, Outcome::kConnectionLost, "").ok());
  auto db = sqlite::open_database(db_path_.string());
  ASSERT_TRUE(db.ok());
  {
    auto s = sqlite::Stmt::prepare(db->get(), "SELECT phase, outcome FROM phases", "read");
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->step().ok());
    EXPECT_EQ(s->text(0), "delete-gpu-pod");
    EXPECT_EQ(s->text(1), "connection-lost");
  }

  ASSERT_TRUE(sqlite::exec(db->get(), "UPDATE phases SET outcome = 'partly'", "edit").ok());
  Result<std::vector<PhaseRecord>> phases = store->phases("j");
  ASSERT_FALSE(phases.ok());
  EXPECT_EQ(phases.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(phases.error().message,
            "store: phase \"delete-gpu-pod\" of job \"j\" has unknown outcome \"partly\" "
            "(written by a newer burst?)");
  ASSERT_TRUE(sqlite::exec(db->get(), "UPDATE phases SET phase = 'warm-up'", "edit").ok());
  phases = store->phases("j");
  ASSERT_FALSE(phases.ok());
  EXPECT_EQ(phases.error().message,
            "store: a phase row of job \"j\" has unknown phase \"warm-up\" (written by a newer "
            "burst?)");
}

TEST_F(StoreTest, TransfersRoundTripInOrder) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  ASSERT_TRUE(store->create_job(make_job("other", 2)).ok());
  TransferRecord sync{"j", "sync", 1234, 5'000'000'000, 65000};
  TransferRecord pull{"j", "pull", 7, 1024, 900};
  ASSERT_TRUE(store->add_transfer(sync).ok());
  ASSERT_TRUE(store->add_transfer(TransferRecord{"other", "sync", 1, 1, 1}).ok());
  ASSERT_TRUE(store->add_transfer(pull).ok());
  Result<std::vector<TransferRecord>> got = store->transfers("j");
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const TransferRecord& want = i == 0 ? sync : pull;
    EXPECT_EQ((*got)[i].job_id, want.job_id);
    EXPECT_EQ((*got)[i].direction, want.direction);
    EXPECT_EQ((*got)[i].files, want.files);
    EXPECT_EQ((*got)[i].bytes, want.bytes);
    EXPECT_EQ((*got)[i].millis, want.millis);
  }
}

TEST_F(StoreTest, DataSurvivesReopen) {
  PodRecord pod = make_pod("j", "burst-j-gpu-0", 100);
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
    ASSERT_TRUE(store->begin_phase("j", Phase::kProvision, 10).ok());
    Result<int64_t> row = store->add_pod(pod);
    ASSERT_TRUE(row.ok());
    pod.row_id = *row;
    ASSERT_TRUE(store->add_transfer(TransferRecord{"j", "sync", 1, 2, 3}).ok());
  }
  auto store = open();
  ASSERT_TRUE(store);
  Result<JobRecord> job = store->get_job("j");
  ASSERT_TRUE(job.ok());
  expect_job_eq(*job, make_job("j", 1));
  Result<std::vector<PhaseRecord>> phases = store->phases("j");
  ASSERT_TRUE(phases.ok());
  ASSERT_EQ(phases->size(), 1u);
  // The phase left open before the reopen can still be closed.
  EXPECT_TRUE(store->end_phase("j", Phase::kProvision, 20, Outcome::kInterrupted, "").ok());
  Result<std::vector<PodRecord>> live = store->live_pods();
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(live->size(), 1u);
  expect_pod_eq((*live)[0], pod);
  Result<std::vector<TransferRecord>> transfers = store->transfers("j");
  ASSERT_TRUE(transfers.ok());
  EXPECT_EQ(transfers->size(), 1u);
}

// Ownership (docs/daemon.md): the installation id is made once and kept; an unknown pod's
// first-seen time is recorded once, survives a reopen, and is forgotten once it is not listed.
TEST_F(StoreTest, InstallationIdAndFirstSeenTimesSurviveReopen) {
  std::string id;
  {
    auto store = open();
    ASSERT_TRUE(store);
    id = store->installation_id().value();
    EXPECT_EQ(id.size(), kInstallationIdLength);
    EXPECT_EQ(*store->pod_first_seen("runpod", "p1", 100), 100);
    EXPECT_EQ(*store->pod_first_seen("runpod", "p1", 200), 100) << "the first sighting stays";
    EXPECT_EQ(*store->pod_first_seen("runpod", "p2", 300), 300);
    EXPECT_EQ(*store->pod_first_seen("vast", "p1", 400), 400) << "keyed by provider too";
  }
  auto store = open();
  ASSERT_TRUE(store);
  EXPECT_EQ(store->installation_id().value(), id) << "made once, never changed";
  EXPECT_EQ(*store->pod_first_seen("runpod", "p1", 500), 100);
  ASSERT_TRUE(store->forget_pods_seen("runpod", {"p2"}).ok());
  EXPECT_EQ(*store->pod_first_seen("runpod", "p1", 600), 600) << "forgotten, then seen afresh";
  EXPECT_EQ(*store->pod_first_seen("runpod", "p2", 700), 300);
  EXPECT_EQ(*store->pod_first_seen("vast", "p1", 800), 400) << "another provider's kept";
  EXPECT_NE(open_sqlite_store(":memory:").value()->installation_id().value(), id);
}

TEST_F(StoreTest, SchemaVersionIsCurrentAndReopenKeepsIt) {
  ASSERT_TRUE(open());
  ASSERT_FALSE(fs::exists(db_path_.string() + "-wal"));  // checkpointed on close
  const auto current = static_cast<uint32_t>(sqlite::current_schema_version());
  EXPECT_GE(current, 2u);  // 2: job facts and calibration (issue 7)
  EXPECT_EQ(read_user_version(db_path_), current);
  ASSERT_TRUE(open());
  EXPECT_EQ(read_user_version(db_path_), current);
}

TEST_F(StoreTest, NewerSchemaIsRefused) {
  ASSERT_TRUE(open());
  ASSERT_FALSE(fs::exists(db_path_.string() + "-wal"));
  write_user_version(db_path_, 99);
  Result<std::unique_ptr<Store>> s = open_sqlite_store(db_path_.string());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(s.error().message, "state database " + db_path_.string() +
                                   " has schema version 99; this burst understands up to " +
                                   std::to_string(sqlite::current_schema_version()) +
                                   ": upgrade burst");
  EXPECT_EQ(read_user_version(db_path_), 99u);  // left untouched
}

TEST_F(StoreTest, FileIsOwnerOnlyWhateverTheUmask) {
  mode_t old = umask(0);
  auto store = open();
  umask(old);
  ASSERT_TRUE(store);
  struct stat st {};
  ASSERT_EQ(stat(db_path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat(db_path_.parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  ASSERT_EQ(stat((db_path_.string() + "-wal").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(StoreTest, InMemoryDatabaseWorks) {
  Result<std::unique_ptr<Store>> s = open_sqlite_store(":memory:");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE((*s)->create_job(make_job("j", 1)).ok());
  EXPECT_TRUE((*s)->get_job("j").ok());
  EXPECT_FALSE(fs::exists(":memory:"));
}

TEST_F(StoreTest, TwoInstancesShareOneFile) {
  auto a = open();
  auto b = open();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->create_job(make_job("run-job", 1)).ok());
  ASSERT_TRUE(b->create_job(make_job("other-job", 2)).ok());
  Result<int64_t> row = a->add_pod(make_pod("other-job", "p", 10));
  ASSERT_TRUE(row.ok());
  PodRecord pod = make_pod("other-job", "p", 10);
  pod.row_id = *row;
  pod.state = PodRecordState::kDeleted;
  ASSERT_TRUE(b->update_pod(pod).ok());
  EXPECT_TRUE(b->get_job("run-job").ok());
  EXPECT_TRUE(a->get_job("other-job").ok());
  Result<std::vector<PodRecord>> live = a->live_pods();
  ASSERT_TRUE(live.ok());
  EXPECT_TRUE(live->empty());
  Result<std::vector<JobRecord>> jobs = a->recent_jobs(10);
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), 2u);
}

TEST_F(StoreTest, TwoInstancesWriteConcurrently) {
  auto a = open();
  auto b = open();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->create_job(make_job("j", 1)).ok());
  constexpr int kWrites = 100;
  auto writer = [](Store* s, const std::string& prefix, Phase phase, int* failures) {
    for (int i = 0; i < kWrites; ++i) {
      if (!s->add_pod(make_pod("j", prefix + std::to_string(i), i)).ok()) ++*failures;
      if (!s->begin_phase("j", phase, i).ok()) ++*failures;
    }
  };
  int fail_a = 0;
  int fail_b = 0;
  std::thread ta(writer, a.get(), "a", Phase::kSync, &fail_a);
  std::thread tb(writer, b.get(), "b", Phase::kRun, &fail_b);
  ta.join();
  tb.join();
  EXPECT_EQ(fail_a, 0);
  EXPECT_EQ(fail_b, 0);
  Result<std::vector<PodRecord>> pods = b->pods_of_job("j");
  ASSERT_TRUE(pods.ok());
  EXPECT_EQ(pods->size(), 2u * kWrites);
  Result<std::vector<PhaseRecord>> phases = a->phases("j");
  ASSERT_TRUE(phases.ok());
  EXPECT_EQ(phases->size(), 2u * kWrites);
}

// `burst run` and `burst reap` are separate processes: a forked child writes while the parent does.
TEST_F(StoreTest, TwoProcessesWriteConcurrently) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->create_job(make_job("j", 1)).ok());
  constexpr int kWrites = 100;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Result<std::unique_ptr<Store>> own = open_sqlite_store(db_path_.string());
    int failures = own.ok() ? 0 : 1;
    for (int i = 0; own.ok() && i < kWrites; ++i) {
      if (!(*own)->add_pod(make_pod("j", "child" + std::to_string(i), i)).ok()) ++failures;
    }
    _exit(failures == 0 ? 0 : 1);
  }
  int failures = 0;
  for (int i = 0; i < kWrites; ++i) {
    if (!store->add_pod(make_pod("j", "parent" + std::to_string(i), i)).ok()) ++failures;
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
  EXPECT_EQ(failures, 0);
  Result<std::vector<PodRecord>> pods = store->pods_of_job("j");
  ASSERT_TRUE(pods.ok());
  EXPECT_EQ(pods->size(), 2u * kWrites);
}

TEST_F(StoreTest, TwoInstancesOpenAFreshFileAtOnce) {
  std::unique_ptr<Store> stores[2];
  std::thread t0([&] { stores[0] = open(); });
  std::thread t1([&] { stores[1] = open(); });
  t0.join();
  t1.join();
  ASSERT_TRUE(stores[0] && stores[1]);
  ASSERT_TRUE(stores[0]->create_job(make_job("j", 1)).ok());
  EXPECT_TRUE(stores[1]->get_job("j").ok());
}

}  // namespace
}  // namespace burst

namespace burst {
namespace {

// Issue 17: the spec-volume -> provider-volume mapping is what finds a Vast volume again, so it
// must survive the process (a reopen), be keyed by (provider, spec volume, region), and keep
// deleted rows out of live_volumes (but in all_volumes: storage billed until deletion).
TEST_F(StoreTest, VolumeMappingSurvivesReopenAndIsKeyedByProviderNameRegion) {
  {
    auto store = open();
    ASSERT_NE(store, nullptr);
    VolumeRecord v{"vast", "tts-cache", "Washington, US (machine 41201)", "", "creating", 10, 0,
                   1000,   1000};
    ASSERT_TRUE(store->put_volume(v).ok());  // recorded before the create call
    v.volume_id = "12345678";
    v.state = "ready";
    v.usd_per_gb_month = 0.15;
    v.updated_ms = 2000;
    ASSERT_TRUE(store->put_volume(v).ok());  // the same key: replaced, not added
    VolumeRecord other = v;
    other.region = "Quebec, CA (machine 41202)";
    other.volume_id = "999";
    other.state = "deleted";
    ASSERT_TRUE(store->put_volume(other).ok());
  }
  auto store = open();
  ASSERT_NE(store, nullptr);
  auto got = store->get_volume("vast", "tts-cache", "Washington, US (machine 41201)");
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->volume_id, "12345678");
  EXPECT_EQ((*got)->state, "ready");
  EXPECT_EQ((*got)->size_gb, 10);
  EXPECT_DOUBLE_EQ((*got)->usd_per_gb_month, 0.15);
  EXPECT_EQ((*got)->created_ms, 1000);
  EXPECT_EQ((*got)->updated_ms, 2000);
  auto none = store->get_volume("runpod", "tts-cache", "Washington, US (machine 41201)");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto live = store->live_volumes();
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(live->size(), 1u);
  EXPECT_EQ((*live)[0].volume_id, "12345678");
  auto all = store->all_volumes();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
}

}  // namespace
}  // namespace burst
