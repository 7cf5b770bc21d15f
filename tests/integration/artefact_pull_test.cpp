// Artefact pull against a real sshd: many small files in one tar stream and a large one streamed
// by offset, all in one command, verified by SHA-256; a pull cut by a dropped connection resumes; a
// file that changes on the pod after it was hashed is reported and never installed; overlapping
// patterns pull a file once; batch names with a backslash or a leading dash verify. Hostile pods:
// tests/unit/pull_hostile_test.cpp.
#include "sync/artefact_pull.h"

#include <signal.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>

#include "crypto/sha256.h"
#include "integration/loopback_pod.h"

namespace burst {
namespace {
namespace fs = std::filesystem;

std::string pattern_bytes(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + (i * 131) % 251);
  return s;
}

class ArtefactPullTest : public LoopbackPodTest {
 protected:
  void SetUp() override {
    LoopbackPodTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    work_ = volume_ + "/code";
    home_ = dir_ + "/home";
    fs::create_directories(work_ + "/out");
  }
  void put(const std::string& rel, const std::string& data) {
    fs::create_directories((fs::path(work_) / rel).parent_path());
    std::ofstream(work_ + "/" + rel, std::ios::binary) << data;
  }
  Result<PullResult> pull(RemoteSession& s, const std::string& pattern,
                          const std::function<void(const PullResult&)>& progress = {}) {
    return pull_artefacts(s, {{pattern, home_, {}}}, work_, volume_, progress);
  }

  std::string work_, home_;
};

TEST_F(ArtefactPullTest, SmallAndLargeFilesArriveVerifiedWithTheirModes) {
  for (int i = 0; i < 20; ++i)
    put("out/clip " + std::to_string(i) + ".wav", pattern_bytes(5000 + i, 'a'));
  const std::string big = pattern_bytes(kBatchMax + 12345, 'z');
  put("out/-model.bin", big);
  ASSERT_EQ(::chmod((work_ + "/out/-model.bin").c_str(), 0640), 0);
  auto r = pull(*session_, "out/*");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->files, 21);
  EXPECT_TRUE(r->failed.empty());
  EXPECT_EQ(sha256_file(home_ + "/-model.bin").value(), sha256_hex(big));
  EXPECT_EQ(sha256_file(home_ + "/clip 7.wav").value(), sha256_hex(pattern_bytes(5007, 'a')));
  struct stat sb {};
  ASSERT_EQ(::stat((home_ + "/-model.bin").c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 07777, 0640u);
  for (const auto& e : fs::directory_iterator(home_))
    EXPECT_EQ(e.path().string().find(".burst-part"), std::string::npos) << e.path();

  auto again = pull(*session_, "out/*");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->files_current, 21) << "already home: nothing to transfer";
  EXPECT_EQ(again->bytes, 0);
}

// The tar batch is hashed by openssl where the pod has it, and by sha256sum -z when a name holds a
// backslash (openssl may escape it): both kinds, and a name that looks like an option, verify.
TEST_F(ArtefactPullTest, BatchNamesWithABackslashOrALeadingDashAreVerified) {
  put("out/-dash.wav", pattern_bytes(3000, 'd'));
  put("out/plain.wav", pattern_bytes(4000, 'p'));
  auto r = pull(*session_, "out/*");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->files, 2);
  EXPECT_TRUE(r->failed.empty()) << r->failed.front();
  EXPECT_EQ(sha256_file(home_ + "/-dash.wav").value(), sha256_hex(pattern_bytes(3000, 'd')));

  put("out/back\\slash.wav", pattern_bytes(5000, 'b'));
  auto with_backslash = pull(*session_, "out/*");
  ASSERT_TRUE(with_backslash.ok()) << with_backslash.error().message;
  EXPECT_EQ(with_backslash->files, 3);
  EXPECT_TRUE(with_backslash->failed.empty()) << with_backslash->failed.front();
  EXPECT_EQ(sha256_file(home_ + "/back\\slash.wav").value(), sha256_hex(pattern_bytes(5000, 'b')));
}

TEST_F(ArtefactPullTest, APullCutByADroppedConnectionResumesFromThePartialFile) {
  const std::string big = pattern_bytes(48u << 20, 'q');
  put("out/render.bin", big);
  const pid_t sshd = session_sshd_pid();
  ASSERT_GT(sshd, 0);
  bool killed = false;
  auto first = pull(*session_, "out/render.bin", [&](const PullResult& r) {
    if (!killed && r.bytes >= (8 << 20)) {
      killed = true;
      ::kill(sshd, SIGKILL);
    }
  });
  ASSERT_TRUE(killed);
  ASSERT_FALSE(first.ok()) << "the connection died mid-pull";
  EXPECT_EQ(first.error().code, ErrorCode::kConnection) << first.error().message;
  EXPECT_FALSE(fs::exists(home_ + "/render.bin")) << "nothing under the final name";
  const auto partial = fs::file_size(home_ + "/render.bin.burst-part");
  EXPECT_GT(partial, 0u);
  EXPECT_LT(partial, big.size());

  reconnect();
  auto second = pull(*session_, "out/render.bin");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->bytes_resumed, static_cast<int64_t>(partial));
  EXPECT_EQ(second->bytes, static_cast<int64_t>(big.size() - partial));
  EXPECT_EQ(sha256_file(home_ + "/render.bin").value(), sha256_hex(big));
  EXPECT_FALSE(fs::exists(home_ + "/render.bin.burst-part"));
}

// Stands in for a file that changes on the pod between the pod's hash of it and its read for the
// transfer: the pod hashes the real bytes, and the bytes that arrive are other ones (each
// `from` replaced by `to`, same length, as they pass through the pull's command).
class ChangeAfterHashing : public RemoteSession {
 public:
  ChangeAfterHashing(RemoteSession& real, std::vector<std::pair<std::string, std::string>> edits)
      : real_(real), edits_(std::move(edits)) {}
  Result<int> exec(const std::string& c, const OutputSink& s,
                   const std::function<bool()>& stop) override {
    return real_.exec(c, s, stop);
  }
  Result<std::string> run_capture(const std::string& c) override { return real_.run_capture(c); }
  Status upload(const std::string& l, const std::string& r, uint32_t m, int64_t t) override {
    return real_.upload(l, r, m, t);
  }
  Status write_file(const std::string& r, const std::string& c, uint32_t m) override {
    return real_.write_file(r, c, m);
  }
  Status mkdirs(const std::string& r, uint32_t m) override { return real_.mkdirs(r, m); }
  Result<RemoteFileInfo> stat(const std::string& r) override { return real_.stat(r); }
  Status download(const std::string& r, const std::string& l) override {
    return real_.download(r, l);
  }
  Result<std::unique_ptr<RemoteStream>> open_stream(const std::string& c) override {
    auto real = real_.open_stream(c);
    if (!real.ok()) return real;
    return std::unique_ptr<RemoteStream>(std::make_unique<Edit>(std::move(*real), edits_));
  }

 private:
  struct Edit : RemoteStream {
    Edit(std::unique_ptr<RemoteStream> s, std::vector<std::pair<std::string, std::string>> e)
        : real(std::move(s)), edits(std::move(e)) {}
    Status write(const char* d, size_t n) override { return real->write(d, n); }
    Status close_stdin() override { return real->close_stdin(); }
    Result<size_t> read(char* d, size_t n) override {
      auto got = real->read(d, n);
      if (!got.ok() || *got == 0) return got;
      std::string chunk(d, *got);
      for (const auto& [from, to] : edits)
        for (size_t at = chunk.find(from); at != std::string::npos; at = chunk.find(from, at + 1))
          chunk.replace(at, from.size(), to);
      std::memcpy(d, chunk.data(), chunk.size());
      return got;
    }
    Result<int> finish(std::string* err) override { return real->finish(err); }
    std::unique_ptr<RemoteStream> real;
    std::vector<std::pair<std::string, std::string>> edits;
  };
  RemoteSession& real_;
  std::vector<std::pair<std::string, std::string>> edits_;
};

TEST_F(ArtefactPullTest, AFileChangedAfterHashingIsReportedAndNotInstalled) {
  put("out/small.txt", "the real result\n");
  put("out/large.bin", "LARGE-ORIGINAL" + pattern_bytes(kBatchMax + 1, 'L'));
  put("out/fine.txt", "untouched\n");
  ChangeAfterHashing s(*session_, {{"the real result\n", "TAMPERED result\n"},
                                   {"LARGE-ORIGINAL", "LARGE-CHANGED!"}});
  auto r = pull(s, "out/*");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->failed.size(), 2u);
  for (const auto& f : r->failed) EXPECT_NE(f.find("sha256 mismatch"), std::string::npos) << f;
  EXPECT_FALSE(fs::exists(home_ + "/small.txt"));
  EXPECT_FALSE(fs::exists(home_ + "/large.bin"));
  EXPECT_FALSE(fs::exists(home_ + "/small.txt.burst-part"));
  EXPECT_FALSE(fs::exists(home_ + "/large.bin.burst-part"));
  EXPECT_TRUE(fs::exists(home_ + "/fine.txt")) << "the good file is still installed";
}

// A partial file left by an older version of the artefact does not poison the next pull: the
// resumed bytes fail verification, and the file is fetched once more from zero.
TEST_F(ArtefactPullTest, APartialFileFromAnOlderVersionIsFetchedAgainFromZero) {
  const std::string now = pattern_bytes(kBatchMax + 4096, 'n');
  put("out/model.bin", now);
  fs::create_directories(home_);
  std::ofstream(home_ + "/model.bin.burst-part", std::ios::binary)
      << pattern_bytes(1 << 20, 'o');  // the first MiB of an older model.bin
  auto r = pull(*session_, "out/model.bin");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->failed.empty()) << r->failed[0];
  EXPECT_EQ(r->files, 1);
  EXPECT_EQ(r->round_trips, 2) << "one more command to fetch it from zero";
  EXPECT_EQ(sha256_file(home_ + "/model.bin").value(), sha256_hex(now));
  EXPECT_FALSE(fs::exists(home_ + "/model.bin.burst-part"));
}

// Two patterns that match one file: it is pulled once (it used to fail the job), and a setuid,
// world-writable mode on the pod arrives masked.
TEST_F(ArtefactPullTest, OverlappingPatternsPullAFileOnceWithItsModeMasked) {
  put("out/a.txt", "a\n");
  put("out/b.txt", "b\n");
  put("out/run.sh", "#!/bin/sh\n");
  ASSERT_EQ(::chmod((work_ + "/out/run.sh").c_str(), 06777), 0);
  ASSERT_EQ(::chmod((work_ + "/out/b.txt").c_str(), 0666), 0);
  auto r = pull_artefacts(*session_,
                          {{"out/*.txt", home_, {}}, {"out/a.*", home_, {}}, {"out/*", home_, {}}},
                          work_, volume_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->failed.empty()) << r->failed[0];
  EXPECT_TRUE(r->unmatched.empty());
  EXPECT_EQ(r->files, 3);
  EXPECT_EQ(r->files_total, 3);
  EXPECT_EQ(sha256_file(home_ + "/a.txt").value(), sha256_hex("a\n"));
  struct stat sb {};
  ASSERT_EQ(::stat((home_ + "/run.sh").c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((home_ + "/b.txt").c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 07777, 0644u);
}

TEST_F(ArtefactPullTest, APatternThatMatchesNothingIsReported) {
  auto r = pull(*session_, "out/*.missing");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->unmatched, std::vector<std::string>{"out/*.missing"});
  EXPECT_EQ(r->files, 0);
}

}  // namespace
}  // namespace burst
