// What only the SQLite Store has: its error texts, states as text in the file, schema versioning
// in user_version, file permissions, and processes sharing one file. The contract every store
// keeps (round trips, life cycles, the queue, the ledger, leases) is
// tests/contract/store_contract_test.cpp. Every test works in its own mkdtemp directory.
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
#include <vector>

#include "burst/provider.h"
#include "burst/store.h"
#include "contract/store_records.h"
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

using testing::make_job;
using testing::make_pod;

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

// A job row's phase is typed (burst/states.h) and kept as the text burst always wrote, so rows
// written before it was typed read back, "queued" and "reap" included; unknown text is an error.
TEST_F(StoreTest, AJobsPhaseIsStoredAsItsNameAndOldRowsReadBack) {
  auto store = open();
  ASSERT_TRUE(store);
  JobRecord job = make_job("j", 1);
  job.phase = Phase::kWaitSsh;
  ASSERT_TRUE(store->create_job(job).ok());
  auto db = sqlite::open_database(db_path_.string());
  ASSERT_TRUE(db.ok());
  {
    auto s = sqlite::Stmt::prepare(db->get(), "SELECT phase FROM jobs", "read");
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->step().ok());
    EXPECT_EQ(s->text(0), "wait-for-ssh");
  }
  for (const auto& [text, phase] : std::vector<std::pair<std::string, Phase>>{
           {"queued", Phase::kQueued}, {"reap", Phase::kReap}, {"recover", Phase::kRecover}}) {
    const std::string edit = "UPDATE jobs SET phase = '" + text + "'";
    ASSERT_TRUE(sqlite::exec(db->get(), edit.c_str(), "edit").ok());
    Result<JobRecord> got = store->get_job("j");
    ASSERT_TRUE(got.ok()) << text;
    EXPECT_EQ(got->phase, phase);
  }
  ASSERT_TRUE(sqlite::exec(db->get(), "UPDATE jobs SET phase = 'warm-up'", "edit").ok());
  Result<JobRecord> got = store->get_job("j");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message,
            "store: job \"j\" has unknown phase \"warm-up\" (written by a newer burst?)");
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

}  // namespace
}  // namespace burst
