// The artefact pull against a hostile pod (issue 15), without sshd: ScriptedPod answers the pull's
// command with the bytes an attacker would send. Each test asserts what the user sees (the error
// names the pod's entry) and what must never happen: a file outside the artefact directory, a
// refused entry installed, a temp file left behind, more bytes than listed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "crypto/sha256.h"
#include "fakes/scripted_pod.h"
#include "fakes/temp_dir.h"
#include "sync/artefact_pull.h"
#include "sync/tar_stream.h"

namespace burst {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct PodFile {
  std::string name;
  std::string data;
  uint32_t mode = 0644;
  size_t pattern = 0;
  int64_t listed = -1;  // the size the listing claims; -1: the real one
};

std::string record(const PodFile& f) {
  char mode[16];
  std::snprintf(mode, sizeof mode, "%o", f.mode);
  const int64_t size = f.listed >= 0 ? f.listed : static_cast<int64_t>(f.data.size());
  return std::to_string(f.pattern) + "\t" + std::to_string(size) + "\t1700000000\t" + mode + "\t" +
         f.name + std::string(1, '\0');
}

std::string listing(const std::vector<PodFile>& files) {
  std::string out;
  for (const auto& f : files) out += record(f);
  return out + "END" + std::string(1, '\0');
}

// A tar stream of `files` (the header size is each one's real size, not the listed one).
std::string tar_of(const std::vector<PodFile>& files, char type = '0') {
  std::string out;
  TarWriter w([&](const char* d, size_t n) {
    out.append(d, n);
    return Status::Ok();
  });
  for (const auto& f : files) {
    TarEntry e;
    e.name = f.name;
    e.type = type;
    e.size = f.data.size();
    EXPECT_TRUE(w.begin(e).ok());
    EXPECT_TRUE(w.data(f.data.data(), f.data.size()).ok());
    EXPECT_TRUE(w.end_entry().ok());
  }
  EXPECT_TRUE(w.finish().ok());
  return out;
}

std::string hashes(const std::vector<PodFile>& files) {
  std::string out;
  for (const auto& f : files) out += sha256_hex(f.data) + "  " + f.name + std::string(1, '\0');
  return out;
}

class PullHostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = tmp_.path() + "/home";
    outside_ = tmp_.path() + "/outside";
    fs::create_directories(outside_);
  }
  Result<PullResult> pull(const std::vector<Artefact>& artefacts, const PullLimits& limits = {}) {
    return pull_artefacts(pod_, artefacts, "/work", "/vol", {}, limits);
  }
  Result<PullResult> pull(const std::string& pattern) { return pull({{pattern, home_, {}}}); }
  // Every file (not directory) under the temp root, except what a test planted.
  std::vector<std::string> files_outside_home() const {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(tmp_.path())) {
      const std::string p = e.path().string();
      if (e.is_directory() && !e.is_symlink()) continue;
      if (p.rfind(home_ + "/", 0) == 0 || planted_.count(p)) continue;
      out.push_back(p);
    }
    return out;
  }
  std::vector<std::string> files_in_home() const {
    std::vector<std::string> out;
    if (!fs::exists(home_)) return out;
    for (const auto& e : fs::recursive_directory_iterator(home_))
      if (!e.is_directory() || e.is_symlink()) out.push_back(e.path().string());
    return out;
  }
  void expect_nothing_written() const {
    EXPECT_THAT(files_outside_home(), ::testing::IsEmpty());
    EXPECT_THAT(files_in_home(), ::testing::IsEmpty());
  }

  TempDir tmp_;
  std::string home_, outside_;
  std::set<std::string> planted_;
  ScriptedPod pod_;
};

TEST_F(PullHostileTest, AnAbsoluteNameIsRefusedAndNamedInTheError) {
  const std::string target = outside_ + "/.bashrc";
  pod_.script =
      listing({{target, "evil\n"}}) + tar_of({{target, "evil\n"}}) + hashes({{target, "evil\n"}});
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_THAT(r.error().message, HasSubstr("pod sent an absolute name"));
  EXPECT_THAT(r.error().message, HasSubstr("\"" + target + "\""));
  EXPECT_EQ(pod_.stdin_seen, "") << "refused before any transfer";
  expect_nothing_written();
}

TEST_F(PullHostileTest, ADoubleSlashNameThatLeavesThePatternIsRefused) {
  const std::string name = "out/" + outside_ + "/.bashrc";  // out//tmp/.../.bashrc
  pod_.script = listing({{name, "evil\n"}});
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("does not match the pattern out/*"));
  EXPECT_THAT(r.error().message, HasSubstr(name));
  expect_nothing_written();
}

TEST_F(PullHostileTest, ADotDotComponentIsRefused) {
  const std::string name = "out/../../outside/x";
  pod_.script = listing({{"out/../x", "evil"}, {name, "evil"}});
  auto r = pull("out/*/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("\"..\" component"));
  EXPECT_THAT(r.error().message, HasSubstr("\"out/../x\""));
  expect_nothing_written();
}

TEST_F(PullHostileTest, ANameMatchingNoRequestedPatternIsRefused) {
  pod_.script = listing({{"out/a.txt", "ok"}, {"secrets/id_rsa", "key"}});
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("does not match the pattern out/*: \"secrets/id_rsa\""));
  expect_nothing_written();
}

TEST_F(PullHostileTest, ControlCharactersInANameAreRefusedAndEscaped) {
  pod_.script = listing({{"out/a\x1b]0;pwned\x07.txt", "x"}});
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("control characters"));
  EXPECT_THAT(r.error().message, HasSubstr("out/a\\x1b]0;pwned\\x07.txt"));
  EXPECT_EQ(r.error().message.find('\x1b'), std::string::npos) << "never raw to a terminal";
  expect_nothing_written();
}

TEST_F(PullHostileTest, AnExtraTarEntryFailsThePullAndNothingIsInstalled) {
  const std::vector<PodFile> asked = {{"out/a.txt", "fine\n"}};
  pod_.script =
      listing(asked) + tar_of({{"out/a.txt", "fine\n"}, {"out/.bashrc", "evil\n"}}) + hashes(asked);
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message,
              HasSubstr("pod sent a tar entry it was not asked for: \"out/.bashrc\""));
  expect_nothing_written();  // a.txt arrived but the attempt failed: no final name, no temp
}

TEST_F(PullHostileTest, ATarEntryThatIsNotAFileIsRefused) {
  const std::vector<PodFile> asked = {{"out/a.txt", ""}};
  pod_.script = listing(asked) + tar_of(asked, '2') + hashes(asked);
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("not a file: \"out/a.txt\""));
  expect_nothing_written();
}

TEST_F(PullHostileTest, SetuidAndWorldWritableModesAreMasked) {
  const std::vector<PodFile> files = {{"out/run.sh", "#!/bin/sh\n", 07777},
                                      {"out/data.txt", "data\n", 0666},
                                      {"out/private.txt", "p\n", 0640}};
  pod_.script = listing(files) + tar_of(files) + hashes(files);
  auto r = pull("out/*");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->files, 3);
  struct stat sb {};
  ASSERT_EQ(::stat((home_ + "/run.sh").c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((home_ + "/data.txt").c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 07777, 0644u);
  ASSERT_EQ(::stat((home_ + "/private.txt").c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 07777, 0640u) << "narrower modes are kept";
  EXPECT_THAT(files_outside_home(), ::testing::IsEmpty());
}

TEST_F(PullHostileTest, ATarFileLongerThanListedIsRefusedBeforeAnyByteIsWritten) {
  // Listed as 6 bytes; the tar header says 1 MiB (the attack wrote 300 MiB).
  PodFile f{"out/small.txt", std::string(1 << 20, 'A'), 0644, 0, 6};
  pod_.script = listing({f}) + tar_of({f}) + hashes({f});
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(
      r.error().message,
      HasSubstr("pod sent 1048576 bytes in the tar stream, listed as 6, for \"out/small.txt\""));
  expect_nothing_written();
}

TEST_F(PullHostileTest, AStreamedFileStopsAtItsListedSize) {
  const uint64_t listed = kBatchMax;
  PodFile f{"out/big.bin", std::string(listed, 'B'), 0644, 0, static_cast<int64_t>(listed)};
  // The pod sends 1 MiB more than listed where the hash records should start.
  pod_.script = listing({f}) + f.data + std::string(1 << 20, 'X') + hashes({f});
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("pod sent a hash record longer than"));
  EXPECT_EQ(pod_.stdin_seen, "b 0 " + std::to_string(listed) + "\n");
  expect_nothing_written();  // the 8 MiB it did write went with the failed attempt
}

TEST_F(PullHostileTest, AnEndlessListingStopsAtTheLimitWithBoundedReads) {
  // Records with 8000-byte names, for ever: the listing limit (64 MiB) ends it.
  const std::string rec = "0\t1\t0\t644\tout/" + std::string(8000, 'n');
  uint64_t n = 0;
  pod_.endless = [&](char* d, size_t len) {
    for (size_t i = 0; i < len; ++i, ++n) {
      const size_t at = n % (rec.size() + 1);
      d[i] = at < rec.size() ? rec[at] : '\0';
    }
    return len;
  };
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_THAT(r.error().message,
              HasSubstr("pod sent a listing longer than the limit of 67108864 bytes"));
  EXPECT_LE(pod_.bytes_read, (64u << 20) + (64u << 10)) << "it stopped reading at the limit";
  expect_nothing_written();
}

TEST_F(PullHostileTest, AnEndlessRecordStopsAtTheRecordLimit) {
  pod_.script = "0\t1\t0\t644\tout/";
  pod_.endless = [](char* d, size_t len) {
    std::memset(d, 'x', len);
    return len;
  };
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message,
              HasSubstr("pod sent a listing record longer than the limit of 8192 bytes"));
  EXPECT_THAT(r.error().message, HasSubstr("...")) << "the entry is cut for printing";
  EXPECT_LT(r.error().message.size(), 400u);
  EXPECT_LE(pod_.bytes_read, 128u << 10);
}

TEST_F(PullHostileTest, EndlessHashRecordsStopAtTheirLimit) {
  const std::vector<PodFile> files = {{"out/a.txt", "a\n"}};
  pod_.script = listing(files) + tar_of(files);
  const std::string rec = hashes(files);
  uint64_t n = 0;
  pod_.endless = [&](char* d, size_t len) {
    for (size_t i = 0; i < len; ++i, ++n) d[i] = rec[n % rec.size()];
    return len;
  };
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("bytes of hash records"));
  EXPECT_LE(pod_.bytes_read, pod_.script.size() + (1u << 20) + (64u << 10));
  expect_nothing_written();
}

TEST_F(PullHostileTest, TooManyEntriesAreRefused) {
  std::vector<PodFile> files;
  for (int i = 0; i < 11; ++i) files.push_back({"out/f" + std::to_string(i), "x"});
  pod_.script = listing(files);
  PullLimits limits;
  limits.max_entries = 10;
  auto r = pull({{"out/*", home_, {}}}, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message,
              HasSubstr("pod sent more than the limit of 10 files; at \"out/f10\""));
  expect_nothing_written();
}

TEST_F(PullHostileTest, AListingOverThePerJobByteCapFailsBeforeTransfer) {
  pod_.script = listing({{"out/a", "", 0644, 0, 600}, {"out/b", "", 0644, 0, 600}});
  PullLimits limits;
  limits.max_total_bytes = 1000;
  auto r = pull({{"out/*", home_, {}}}, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("pod listed more than 1000 bytes of artefacts"));
  EXPECT_THAT(r.error().message, HasSubstr("\"out/b\""));
  EXPECT_EQ(pod_.stdin_seen, "") << "nothing asked for";
  expect_nothing_written();
}

TEST_F(PullHostileTest, AForgedHashIsAMismatchAndNothingIsInstalled) {
  const std::vector<PodFile> sent = {{"out/a.txt", "what was sent\n"}};
  pod_.script = listing(sent) + tar_of(sent) + hashes({{"out/a.txt", "what was claimed\n"}});
  auto r = pull("out/*");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->failed.size(), 1u);
  EXPECT_THAT(r->failed[0], HasSubstr("artefact \"out/a.txt\": sha256 mismatch"));
  EXPECT_EQ(r->files, 0);
  expect_nothing_written();
}

TEST_F(PullHostileTest, AHashForAFileNotAskedForIsRefused) {
  const std::vector<PodFile> sent = {{"out/a.txt", "a\n"}};
  pod_.script = listing(sent) + tar_of(sent) + hashes({{"out/a.txt", "a\n"}, {"out/zz", "z"}});
  auto r = pull("out/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("pod sent a hash for a file not asked for \"out/zz\""));
  expect_nothing_written();
}

TEST_F(PullHostileTest, ALocalParentThatIsASymlinkToOutsideIsRefused) {
  fs::create_directories(home_);
  fs::create_directory_symlink(outside_, home_ + "/sub");
  const std::vector<PodFile> files = {{"out/sub/evil.txt", "evil\n"}};
  pod_.script = listing(files) + tar_of(files) + hashes(files);
  auto r = pull("out/*/*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("artefact \"out/sub/evil.txt\""));
  EXPECT_THAT(r.error().message, HasSubstr("is a symlink or not a directory; refused"));
  EXPECT_TRUE(fs::is_empty(outside_)) << "nothing written through the link";
  EXPECT_THAT(files_outside_home(), ::testing::IsEmpty());
}

TEST_F(PullHostileTest, AFinalNameThatIsASymlinkIsReplacedNotFollowed) {
  fs::create_directories(home_);
  const std::string victim = outside_ + "/victim";
  std::ofstream(victim) << "precious\n";
  planted_.insert(victim);
  fs::create_symlink(victim, home_ + "/a.txt");
  const std::vector<PodFile> files = {{"out/a.txt", "pulled\n"}};
  pod_.script = listing(files) + tar_of(files) + hashes(files);
  auto r = pull("out/*");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(fs::is_symlink(home_ + "/a.txt"));
  EXPECT_EQ(sha256_file(home_ + "/a.txt").value(), sha256_hex("pulled\n"));
  EXPECT_EQ(sha256_file(victim).value(), sha256_hex("precious\n"));
  EXPECT_THAT(files_outside_home(), ::testing::IsEmpty());
}

TEST_F(PullHostileTest, OverlappingPatternsPullAFileOnceForTheFirst) {
  const std::string home2 = tmp_.path() + "/home2";
  const PodFile a{"out/a.txt", "once\n", 0644, 0};
  PodFile a_again = a;
  a_again.pattern = 1;
  pod_.script = listing({a, a_again}) + tar_of({a}) + hashes({a});
  auto r = pull({{"out/*.txt", home_, {}}, {"out/a.*", home2, {}}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->failed.empty());
  EXPECT_TRUE(r->unmatched.empty());
  EXPECT_EQ(r->files, 1);
  EXPECT_EQ(pod_.stdin_seen, "t\ns\n") << "the second match is skipped on the pod";
  EXPECT_EQ(sha256_file(home_ + "/a.txt").value(), sha256_hex("once\n"));
  EXPECT_FALSE(fs::exists(home2 + "/a.txt"));
}

TEST_F(PullHostileTest, TwoPodFilesForOneLocalNameAreRefused) {
  pod_.script = listing({{"a/x.txt", "1", 0644, 0}, {"b/x.txt", "2", 0644, 1}});
  auto r = pull({{"a/*", home_, {}}, {"b/*", home_, {}}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("\"a/x.txt\" and \"b/x.txt\" would both be written"));
  expect_nothing_written();
}

}  // namespace
}  // namespace burst
