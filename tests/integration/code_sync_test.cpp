// Incremental code sync against a real sshd: odd names, modes and mtimes arrive intact, an
// unchanged tree costs one round trip and zero bytes, deletions and excludes are honoured.
#include "sync/code_sync.h"

#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <fstream>
#include <future>

#include "crypto/sha256.h"
#include "integration/loopback_pod.h"
#include "sync/sync_manifest.h"

namespace burst {
namespace {
namespace fs = std::filesystem;

class CodeSyncTest : public LoopbackPodTest {
 protected:
  void SetUp() override {
    LoopbackPodTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    code_ = dir_ + "/code";
    remote_ = volume_ + "/code";
    fs::create_directories(code_);
  }
  void write(const std::string& rel, const std::string& text, uint32_t mode = 0644,
             time_t mtime = 1700000000) {
    fs::path p = fs::path(code_) / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    ASSERT_EQ(::chmod(p.c_str(), mode), 0);
    struct timeval t[2] = {{mtime, 0}, {mtime, 0}};
    ASSERT_EQ(::utimes(p.c_str(), t), 0);
  }
  SyncStats sync(const std::vector<std::string>& exclude = {}) {
    CodeSpec spec;
    spec.dir = code_;
    spec.exclude = exclude;
    auto scan = scan_code_dir(spec);
    EXPECT_TRUE(scan.ok()) << (scan.ok() ? "" : scan.error().message);
    if (!scan.ok()) return {};
    auto stats = sync_code(*session_, *scan, {remote_, manifest_path_for(volume_, remote_)}, {});
    EXPECT_TRUE(stats.ok()) << (stats.ok() ? "" : stats.error().message);
    return stats.ok() ? *stats : SyncStats{};
  }
  std::string remote_text(const std::string& rel) {
    std::ifstream f(remote_ + "/" + rel);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }
  struct stat remote_stat(const std::string& rel) {
    struct stat sb {};
    EXPECT_EQ(::lstat((remote_ + "/" + rel).c_str(), &sb), 0) << rel;
    return sb;
  }

  std::string code_, remote_;
};

TEST_F(CodeSyncTest, OddNamesModesMtimesAndInRootLinksArriveIntact) {
  const std::string long_name =
      "deep/" + std::string(120, 'n') + "/" + std::string(90, 'f') + ".txt";
  write("a file with spaces.txt", "spaces\n");
  write("ünïcödé/ファイル.txt", "unicode\n", 0600, 1600000000);
  write("-leading-dash.sh", "#!/bin/sh\necho dash\n", 0750);
  write("empty", "");
  write(long_name, "long\n");
  fs::create_symlink("a file with spaces.txt", fs::path(code_) / "link to spaces");
  SyncStats s = sync();
  EXPECT_EQ(s.files_sent, 6);
  EXPECT_EQ(s.method, "tar");
  EXPECT_EQ(remote_text("a file with spaces.txt"), "spaces\n");
  EXPECT_EQ(remote_text("ünïcödé/ファイル.txt"), "unicode\n");
  EXPECT_EQ(remote_text(long_name), "long\n");
  EXPECT_EQ(remote_text("empty"), "");
  EXPECT_EQ(remote_stat("-leading-dash.sh").st_mode & 07777, 0750u);
  EXPECT_EQ(remote_stat("-leading-dash.sh").st_mtime, 1700000000);
  EXPECT_EQ(remote_stat("ünïcödé/ファイル.txt").st_mode & 07777, 0600u);
  EXPECT_EQ(remote_stat("ünïcödé/ファイル.txt").st_mtime, 1600000000);
  ASSERT_TRUE(S_ISLNK(remote_stat("link to spaces").st_mode)) << "copied as a link, not a file";
  EXPECT_EQ(fs::read_symlink(remote_ + "/link to spaces").string(), "a file with spaces.txt");
  EXPECT_TRUE(fs::exists(manifest_path_for(volume_, remote_))) << "manifest kept on the volume";
  for (const auto& e : fs::directory_iterator(remote_))
    EXPECT_EQ(e.path().filename().string().find(".burst-"), std::string::npos) << e.path();
}

TEST_F(CodeSyncTest, ASecondSyncOfAnUnchangedTreeSendsNothingInOneRoundTrip) {
  for (int i = 0; i < 50; ++i) write("src/f" + std::to_string(i) + ".py", std::to_string(i));
  SyncStats first = sync();
  EXPECT_EQ(first.files_sent, 50);
  SyncStats again = sync();
  EXPECT_EQ(again.files_sent, 0);
  EXPECT_EQ(again.bytes_sent, 0);
  EXPECT_EQ(again.round_trips, 1);
  EXPECT_EQ(again.method, "none");
}

TEST_F(CodeSyncTest, AScanStillRunningWhileThePodAnswersIsWaitedForAndItsErrorReturned) {
  for (int i = 0; i < 20; ++i) write("src/f" + std::to_string(i) + ".py", std::to_string(i));
  CodeSpec spec;
  spec.dir = code_;
  const SyncTarget target{remote_, manifest_path_for(volume_, remote_)};
  std::shared_future<Result<ScanResult>> scan =
      std::async(std::launch::async, [&] { return scan_code_dir(spec); }).share();
  int calls = 0;
  auto local = [&]() -> Result<const ScanResult*> {
    ++calls;
    const Result<ScanResult>& r = scan.get();
    if (!r.ok()) return r.error();
    return &*r;
  };
  auto first = sync_code(*session_, local, target, {});
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->files_sent, 20);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(remote_text("src/f7.py"), "7");
  auto again = sync_code(*session_, local, target, {});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->bytes_sent, 0);
  EXPECT_EQ(again->round_trips, 1);

  auto failing = [](void) -> Result<const ScanResult*> {
    return make_error(ErrorCode::kInvalid, "code.dir: file name contains a newline");
  };
  auto failed = sync_code(*session_, failing, target, {});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::kInvalid);
  EXPECT_NE(failed.error().message.find("newline"), std::string::npos) << failed.error().message;
  EXPECT_EQ(remote_text("src/f7.py"), "7") << "nothing removed on the pod";
}

TEST_F(CodeSyncTest, OnlyChangedFilesAreSentAndATouchedFileOnlyGetsItsMtime) {
  write("a.txt", "alpha");
  write("b.txt", "bravo");
  write("c.txt", "charlie");
  sync();
  write("a.txt", "ALPHA!");                   // changed content
  write("b.txt", "bravo", 0644, 1800000000);  // same content, new mtime
  SyncStats s = sync();
  EXPECT_EQ(s.files_sent, 1);
  EXPECT_EQ(s.bytes_sent, 6);
  EXPECT_EQ(s.files_touched, 1);
  EXPECT_EQ(remote_text("a.txt"), "ALPHA!");
  EXPECT_EQ(remote_stat("b.txt").st_mtime, 1800000000);
  EXPECT_EQ(sync().bytes_sent, 0) << "the manifest recorded the new state";
}

TEST_F(CodeSyncTest, DeletionsPropagateButFilesTheJobMadeStay) {
  write("keep.py", "k");
  write("gone.py", "g");
  write("old/dir/x.py", "x");
  sync();
  std::ofstream(remote_ + "/job-output.txt") << "made on the pod";
  std::ofstream(remote_ + "/old/made-by-job.txt") << "also";
  fs::remove(fs::path(code_) / "gone.py");
  fs::remove_all(fs::path(code_) / "old");
  SyncStats s = sync();
  EXPECT_EQ(s.files_sent, 0);
  EXPECT_FALSE(fs::exists(remote_ + "/gone.py"));
  EXPECT_FALSE(fs::exists(remote_ + "/old/dir"));
  EXPECT_TRUE(fs::exists(remote_ + "/keep.py"));
  EXPECT_TRUE(fs::exists(remote_ + "/job-output.txt")) << "not burst's: left alone";
  EXPECT_TRUE(fs::exists(remote_ + "/old/made-by-job.txt")) << "a non-empty dir is kept";
}

TEST_F(CodeSyncTest, AFileTheJobChangedOnThePodIsSentAgain) {
  write("model.py", "original");
  sync();
  std::ofstream(remote_ + "/model.py") << "edited on the pod";
  SyncStats s = sync();
  EXPECT_EQ(s.files_sent, 1);
  EXPECT_EQ(remote_text("model.py"), "original");
}

TEST_F(CodeSyncTest, ExcludesGitignoreAndBurstignoreAreHonoured) {
  write("main.py", "m");
  write(".gitignore", "*.log\n");
  write(".burstignore", "data/\n");
  write("run.log", "l");
  write("data/big.bin", "b");
  write("secret.env", "s");
  sync({"*.env"});
  EXPECT_TRUE(fs::exists(remote_ + "/main.py"));
  EXPECT_FALSE(fs::exists(remote_ + "/run.log"));
  EXPECT_FALSE(fs::exists(remote_ + "/data"));
  EXPECT_FALSE(fs::exists(remote_ + "/secret.env"));
}

// code.add: a file and a directory from outside the code dir arrive at their `to`, their
// parents made; the second sync of the same tree sends nothing; exclude does not filter them.
TEST_F(CodeSyncTest, AddedFilesAndDirsFromOutsideArriveAtTheirPlace) {
  write("main.py", "m");
  const std::string out = dir_ + "/outside";
  fs::create_directories(out + "/creds/sub");
  std::ofstream(out + "/.netrc") << "netrc";
  std::ofstream(out + "/creds/sub/key.env") << "key";
  CodeSpec spec;
  spec.dir = code_;
  spec.exclude = {"*.env"};
  spec.add = {{out + "/.netrc", ".burst-add/0/.netrc", {}}, {out + "/creds", "extra/creds", {}}};
  auto scan = scan_code_dir(spec);
  ASSERT_TRUE(scan.ok()) << scan.error().message;
  const SyncTarget target{remote_, manifest_path_for(volume_, remote_)};
  auto stats = sync_code(*session_, *scan, target, {});
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->files_sent, 3);
  EXPECT_EQ(remote_text(".burst-add/0/.netrc"), "netrc");
  EXPECT_EQ(remote_text("extra/creds/sub/key.env"), "key");
  stats = sync_code(*session_, *scan, target, {});
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->files_sent, 0);
  // One the code dir has too is refused, naming it.
  spec.add = {{out + "/.netrc", "main.py", {}}};
  scan = scan_code_dir(spec);
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.error().message, "code.add main.py: " + out + "/.netrc: code.dir has it too");
}

TEST_F(CodeSyncTest, ANewlineInANameIsRefusedNamingTheFile) {
  write("ok.py", "x");
  write("bad\nname.py", "x");
  CodeSpec spec;
  spec.dir = code_;
  auto scan = scan_code_dir(spec);
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.error().code, ErrorCode::kInvalid);
  EXPECT_NE(scan.error().message.find("newline"), std::string::npos) << scan.error().message;
  EXPECT_NE(scan.error().message.find("bad\\nname.py"), std::string::npos) << scan.error().message;
}

// A code file swapped between the scan and the send (a symlink to the user's SSH key, or another
// file renamed over it) is refused, naming the file: the link's target never reaches the pod.
TEST_F(CodeSyncTest, AFileSwappedAfterTheScanIsRefusedNotItsReplacementSent) {
  const std::string secret = dir_ + "/id_secret";
  std::ofstream(secret) << "PRIVATE KEY MATERIAL";
  write("train.py", "print(1)");
  write("other.py", "print(2)");
  CodeSpec spec;
  spec.dir = code_;
  auto scan = scan_code_dir(spec);
  ASSERT_TRUE(scan.ok()) << scan.error().message;
  const SyncTarget target{remote_, manifest_path_for(volume_, remote_)};

  // Kept aside (not deleted), so no file below can reuse the scanned file's inode number.
  fs::rename(fs::path(code_) / "train.py", dir_ + "/train.py.scanned");
  fs::create_symlink(secret, fs::path(code_) / "train.py");
  auto linked = sync_code(*session_, *scan, target, {});
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message.find(code_ + "/train.py was replaced after the scan"),
            std::string::npos)
      << linked.error().message;
  EXPECT_NE(linked.error().message.find("symlink"), std::string::npos) << linked.error().message;
  EXPECT_EQ(remote_text("train.py").find("PRIVATE"), std::string::npos);

  fs::remove(fs::path(code_) / "train.py");
  std::ofstream(code_ + "/train.py.new") << "print(1)";  // same size, another inode
  fs::rename(code_ + "/train.py.new", code_ + "/train.py");
  auto renamed = sync_code(*session_, *scan, target, {});
  ASSERT_FALSE(renamed.ok());
  EXPECT_NE(renamed.error().message.find("no longer the regular file scanned"), std::string::npos)
      << renamed.error().message;

  scan = scan_code_dir(spec);  // scanned again, the same file is sent
  ASSERT_TRUE(scan.ok());
  auto again = sync_code(*session_, *scan, target, {});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(remote_text("train.py"), "print(1)");
}

// The answer that lists the pod's side of a sync is read to its end marker with a limit: a pod
// whose manifest never ends is refused, and burst does not wait for the rest.
TEST_F(CodeSyncTest, AManifestAnswerOverTheLimitIsRefused) {
  write("a.py", "a");
  sync();
  const std::string manifest = manifest_path_for(volume_, remote_);
  {
    std::ofstream big(manifest);
    big << "burst-manifest 1\n";
    const std::string line(1 << 20, 'x');
    for (size_t i = 0; i <= ProbeReplyReader::kMaxReply / line.size(); ++i) big << line;
  }
  CodeSpec spec;
  spec.dir = code_;
  auto scan = scan_code_dir(spec);
  ASSERT_TRUE(scan.ok());
  auto stats = sync_code(*session_, *scan, {remote_, manifest}, {});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().message.find("manifest answer is longer than"), std::string::npos)
      << stats.error().message;
}

}  // namespace
}  // namespace burst
