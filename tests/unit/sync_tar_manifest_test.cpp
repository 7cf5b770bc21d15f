// The tar stream (ours in both directions, and GNU tar reading ours) and the sync manifest.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "fakes/temp_dir.h"
#include "sync/sync_manifest.h"
#include "sync/tar_stream.h"

namespace burst {
namespace {
namespace fs = std::filesystem;

const std::string kLongName = "ünïcödé/" + std::string(150, 'x') + "/ファイル.txt";

std::string sample_archive() {
  std::string out;
  TarWriter w([&](const char* d, size_t n) {
    out.append(d, n);
    return Status::Ok();
  });
  EXPECT_TRUE(w.begin({"dir", '5', 0750, 0, 0, ""}).ok());
  EXPECT_TRUE(w.begin({kLongName, '0', 0640, 1700000000, 5, ""}).ok());
  EXPECT_TRUE(w.data("hello", 5).ok());
  EXPECT_TRUE(w.end_entry().ok());
  EXPECT_TRUE(w.begin({"-dash link", '2', 0777, 0, 0, kLongName}).ok());
  EXPECT_TRUE(w.begin({"short", '0', 0600, 1600000000, 4, ""}).ok());
  EXPECT_TRUE(w.data("ab", 2).ok());  // the file shrank: the writer pads
  EXPECT_TRUE(w.end_entry().ok());
  EXPECT_TRUE(w.finish().ok());
  return out;
}

TEST(SyncTar, OurReaderReadsOurWriterIncludingPaxNames) {
  std::string archive = sample_archive();
  EXPECT_EQ(archive.size() % 512, 0u);
  size_t pos = 0;
  TarReader r([&](char* d, size_t n) -> Result<size_t> {
    size_t k = std::min(n, archive.size() - pos);
    std::memcpy(d, archive.data() + pos, k);
    pos += k;
    return k;
  });
  std::vector<std::string> names;
  std::string content;
  while (true) {
    auto e = r.next();
    ASSERT_TRUE(e.ok());
    if (!*e) break;
    names.push_back((*e)->name);
    if ((*e)->name == kLongName) {
      EXPECT_EQ((*e)->mode, 0640u);
      EXPECT_EQ((*e)->mtime, 1700000000);
      char buf[16];
      auto n = r.read(buf, sizeof buf);
      ASSERT_TRUE(n.ok());
      content.assign(buf, *n);
    }
    if ((*e)->type == '2') {
      EXPECT_EQ((*e)->link, kLongName);
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"dir", kLongName, "-dash link", "short"}));
  EXPECT_EQ(content, "hello");
}

TEST(SyncTar, GnuTarExtractsOurArchive) {
  if (std::system("tar --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "SKIPPED: no tar";
  TempDir t;
  std::ofstream(t.path() + "/a.tar", std::ios::binary) << sample_archive();
  ASSERT_EQ(std::system(("cd '" + t.path() + "' && mkdir x && tar -C x -xpf a.tar").c_str()), 0);
  std::ifstream f(t.path() + "/x/" + kLongName);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "hello");
  EXPECT_EQ(fs::read_symlink(t.path() + "/x/-dash link").string(), kLongName);
  EXPECT_EQ(fs::file_size(t.path() + "/x/short"), 4u);
}

TEST(SyncManifest, FormatsAndParsesBackIncludingTabsInNames) {
  std::vector<ManifestEntry> in = {{'f', 0644, 12, 1700000000, std::string(64, 'a'), "b\tc.py"},
                                   {'d', 0755, 0, 0, "-", "a dir"},
                                   {'l', 0777, 5, 0, std::string(64, 'b'), "link"}};
  std::string text = format_manifest(in);
  EXPECT_EQ(text.rfind("burst-manifest 1\n", 0), 0u);
  Manifest m = parse_manifest(text);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m["b\tc.py"].size, 12u);
  EXPECT_EQ(m["b\tc.py"].mode, 0644u);
  EXPECT_EQ(m["a dir"].type, 'd');
  EXPECT_TRUE(parse_manifest("garbage\nf\t1").empty()) << "unreadable: send everything again";
}

TEST(SyncManifest, PlanSendsOnlyWhatChangedAndRemovesOnlyInsideRealDirs) {
  ScanResult scan;
  scan.dirs = {"src"};
  scan.dir_modes = {0755};
  scan.files = {{"src/same.py", "/l/src/same.py", 3, 0644, 100, "", ""},
                {"src/new.py", "/l/src/new.py", 4, 0644, 100, "", ""}};
  Manifest m;
  m["src"] = {'d', 0755, 0, 0, "-", "src"};
  m["src/same.py"] = {'f', 0644, 3, 100, "h1", "src/same.py"};
  m["src/gone.py"] = {'f', 0644, 1, 100, "h2", "src/gone.py"};
  m["evil/x"] = {'f', 0644, 1, 100, "h3", "evil/x"};
  std::map<std::string, RemoteStat> remote = {{"src", {'d', 0755, 0, 0}},
                                              {"src/same.py", {'f', 0644, 3, 100}},
                                              {"src/gone.py", {'f', 0644, 1, 100}},
                                              {"evil", {'l', 0777, 4, 0}},
                                              {"evil/x", {'f', 0644, 1, 100}}};
  int hashed = 0;
  auto plan = plan_sync(scan, m, remote, [&](const LocalFile&) -> Result<std::string> {
    ++hashed;
    return std::string("h");
  });
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->send, std::vector<size_t>{1});
  EXPECT_EQ(plan->remove, std::vector<std::string>{"src/gone.py"}) << "never through a symlink";
  EXPECT_TRUE(plan->send_dirs.empty());
  EXPECT_EQ(hashed, 0) << "size and mtime match: no hashing";
}

TEST(SyncManifest, AnUnchangedTreeNeedsNoNewManifestButAModeChangeOrAStaleEntryDoes) {
  ScanResult scan;
  scan.dirs = {"src"};
  scan.dir_modes = {0755};
  scan.files = {{"src/a.py", "/l/src/a.py", 3, 0644, 100, "", ""}};
  Manifest m;
  m["src"] = {'d', 0755, 0, 0, "-", "src"};
  m["src/a.py"] = {'f', 0644, 3, 100, "h1", "src/a.py"};
  std::map<std::string, RemoteStat> remote = {{"src", {'d', 0755, 0, 0}},
                                              {"src/a.py", {'f', 0644, 3, 100}}};
  auto no_hash = [](const LocalFile&) -> Result<std::string> { return std::string("h1"); };
  auto plan = plan_sync(scan, m, remote, no_hash);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->manifest_current);
  EXPECT_EQ(plan->known_hash, std::vector<std::string>{"h1"});

  scan.dir_modes = {0700};  // only the directory's mode differs: the manifest must be rewritten
  plan = plan_sync(scan, m, remote, no_hash);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->send.empty());
  EXPECT_FALSE(plan->manifest_current);

  scan.dir_modes = {0755};
  m["src/gone.py"] = {'f', 0644, 1, 100, "h2", "src/gone.py"};  // gone here and on the pod
  plan = plan_sync(scan, m, remote, no_hash);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->remove.empty());
  EXPECT_FALSE(plan->manifest_current) << "the stale entry must leave the manifest";
}

TEST(SyncManifest, ParsesWhatItFormatsForAThousandFilesInOrder) {
  std::vector<ManifestEntry> in;
  for (int i = 999; i >= 0; --i)
    in.push_back(
        {'f', 0600, static_cast<uint64_t>(i), -1, std::string(64, 'c'), "d/" + std::to_string(i)});
  const std::string text = format_manifest(in);
  Manifest m = parse_manifest(text);
  ASSERT_EQ(m.size(), 1000u);
  EXPECT_EQ(m["d/7"].size, 7u);
  EXPECT_EQ(m["d/7"].mtime, -1) << "a file that shrank while sent is marked -1";
  EXPECT_EQ(m.begin()->first, "d/0");
  EXPECT_TRUE(parse_manifest(text.substr(0, text.size() - 70) + "x\n").empty())
      << "a damaged line: the whole manifest is distrusted";
}

}  // namespace
}  // namespace burst
