// The parsers for what a pod sends in a pull, and the name -> local path rule
// (src/sync/pull_listing.h): exact errors, strict numbers, limits, records split across reads.
#include "sync/pull_listing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace burst {
namespace {
using ::testing::HasSubstr;

const std::string kNul(1, '\0');

Result<std::vector<ListedFile>> parse(const std::string& bytes, size_t chunk = 3,
                                      PullLimits limits = {}) {
  ListingParser p(limits, 2);
  for (size_t at = 0; at < bytes.size() && !p.done(); at += chunk) {
    auto used = p.feed(bytes.data() + at, std::min(chunk, bytes.size() - at));
    if (!used.ok()) return used.error();
  }
  if (!p.done()) return make_error(ErrorCode::kInternal, "not done");
  return p.files();
}

TEST(PullListingTest, ParsesRecordsSplitAcrossReadsAndStopsAtEnd) {
  const std::string bytes = "0\t12\t1700000000\t755\tout/a b.sh" + kNul +
                            "1\t0\t-3\t644\t/vol/x\ty" + kNul + "END" + kNul + "tar bytes";
  ListingParser p({}, 2);
  auto used = p.feed(bytes.data(), bytes.size());
  ASSERT_TRUE(used.ok()) << used.error().message;
  EXPECT_TRUE(p.done());
  EXPECT_EQ(bytes.substr(*used), "tar bytes") << "what follows END is not consumed";
  auto files = parse(bytes);
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].name, "out/a b.sh");
  EXPECT_EQ((*files)[0].size, 12u);
  EXPECT_EQ((*files)[0].mode, 0755u);
  EXPECT_EQ((*files)[1].pattern, 1u);
  EXPECT_EQ((*files)[1].mtime, -3);
  EXPECT_EQ((*files)[1].name, "/vol/x\ty") << "a tab in the name stays in the name";
}

TEST(PullListingTest, NumbersAreStrict) {
  for (const std::string rec :
       {"2\t1\t1\t644\tout/a", "x\t1\t1\t644\tout/a", "0\t-1\t1\t644\tout/a",
        "0\t+1\t1\t644\tout/a", "0\t1 \t1\t644\tout/a", "0\t99999999999999999999\t1\t644\tout/a",
        "0\t1\t1\t10000\tout/a", "0\t1\t1\t8\tout/a", "0\t1\t\t644\tout/a", "0\t1\t1\t644",
        "0\t1\t1\t644\t"}) {
    auto r = parse(rec + kNul + "END" + kNul);
    ASSERT_FALSE(r.ok()) << rec;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
    EXPECT_THAT(r.error().message, HasSubstr("pod sent a")) << rec;
  }
  auto r = parse("0\t1\t1\t0644x\tout/a" + kNul + "END" + kNul);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "pod sent a listing record with a bad mode \"0\\t1\\t1\\t0644x\\tout/a\"");
}

TEST(PullListingTest, LimitsAreErrors) {
  PullLimits limits;
  limits.max_record_bytes = 16;
  auto r = parse("0\t1\t1\t644\tout/abcdefghijk" + kNul, 5, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message,
              HasSubstr("pod sent a listing record longer than the limit of 16 bytes"));
  limits = {};
  limits.max_listing_bytes = 30;
  r = parse("0\t1\t1\t644\tout/a" + kNul + "0\t1\t1\t644\tout/b" + kNul + "END" + kNul, 4, limits);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "pod sent a listing longer than the limit of 30 bytes (1 entries so far)");
}

TEST(PullHashesTest, ParsesRecordsAndSkipsTarPadding) {
  const std::string sha(64, 'a');
  const std::string bytes =
      std::string(1024, '\0') + sha + "  out/a b" + kNul + std::string(64, 'f') + "  /x" + kNul;
  HashParser p({});
  for (size_t at = 0; at < bytes.size(); at += 7)
    ASSERT_TRUE(p.feed(bytes.data() + at, std::min<size_t>(7, bytes.size() - at)).ok());
  ASSERT_TRUE(p.finish().ok());
  ASSERT_EQ(p.hashes().size(), 2u);
  EXPECT_EQ(p.hashes().at("out/a b"), sha);
}

TEST(PullHashesTest, MalformedRecordsAreErrors) {
  for (const std::string& rec : {std::string(64, 'A') + "  out/a", std::string(63, 'a') + "  out/a",
                                 std::string(64, 'a') + " *out/a", std::string(64, 'a') + "  "}) {
    HashParser p({});
    Status st = p.feed((rec + kNul).data(), rec.size() + 1);
    ASSERT_FALSE(st.ok()) << rec;
    EXPECT_THAT(st.error().message, HasSubstr("pod sent a")) << rec;
  }
  HashParser p({});
  const std::string part = std::string(64, 'a') + "  out/a";
  ASSERT_TRUE(p.feed(part.data(), part.size()).ok());
  EXPECT_FALSE(p.finish().ok()) << "an unterminated record";
}

TEST(PullPathTest, MapsUnderThePatternDirectory) {
  EXPECT_EQ(local_relative("out/*", "out/a.txt").value(), "a.txt");
  EXPECT_EQ(local_relative("out/clips/*.wav", "out/clips/c 1.wav").value(), "c 1.wav");
  EXPECT_EQ(local_relative("out/*/*.wav", "out/x/c.wav").value(), "x/c.wav");
  EXPECT_EQ(local_relative("model.bin", "model.bin").value(), "model.bin");
  EXPECT_EQ(local_relative("out/model.bin", "out/model.bin").value(), "model.bin");
  EXPECT_EQ(local_relative("/vol/ckpt/*", "/vol/ckpt/s1.pt").value(), "s1.pt");
  EXPECT_EQ(local_relative("/*.bin", "/a.bin").value(), "a.bin");
  EXPECT_EQ(local_relative("../data/*", "../data/a").value(), "a")
      << "the user's own pattern may climb; the pod's part may not";
  EXPECT_EQ(local_relative("out/[ab].txt", "out/a.txt").value(), "a.txt");
}

TEST(PullPathTest, RefusesWhatIsNotPlainlyInside) {
  struct Case {
    const char* pattern;
    std::string name;
    const char* why;
  };
  const Case cases[] = {
      {"out/*", "/home/u/.bashrc", "an absolute name for a relative pattern"},
      {"/vol/*", "vol/a", "a relative name for an absolute pattern"},
      {"out/*", "out//home/u/.bashrc", "does not match the pattern"},
      {"out/*", "other/a", "does not match the pattern"},
      {"out/*", "out/a/b", "does not match the pattern"},
      {"out/*/*", "out/../x", "component"},
      {"out/*/*", "out/./x", "component"},
      {"out/*", "out/..", "component"},
      {"out/*", "out/a\nb", "control characters"},
      {"out/*", "out/a\x7f", "control characters"},
      {"out/*", "out/a.burst-part", ".burst-part"},
      {"out/*", "", "an empty file name"},
  };
  for (const Case& c : cases) {
    auto r = local_relative(c.pattern, c.name);
    ASSERT_FALSE(r.ok()) << c.pattern << " " << c.name << " -> " << r.value();
    EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
    EXPECT_THAT(r.error().message, HasSubstr(c.why)) << c.name;
    EXPECT_THAT(r.error().message, HasSubstr("\"" + escape_entry(c.name) + "\""));
  }
}

TEST(PullPathTest, EscapeEntryIsPrintableAndCut) {
  EXPECT_EQ(escape_entry("a\tb\n\x1b[31m\"\\\xff"), "a\\tb\\n\\x1b[31m\\\"\\\\\\xff");
  EXPECT_EQ(escape_entry(std::string(500, 'x')), std::string(200, 'x') + "...");
}

TEST(PullPathTest, InstallModeIsMasked) {
  EXPECT_EQ(install_mode(07777), 0755u);
  EXPECT_EQ(install_mode(04755), 0755u);
  EXPECT_EQ(install_mode(0666), 0644u);
  EXPECT_EQ(install_mode(0640), 0640u);
  EXPECT_EQ(install_mode(0), 0600u);
  EXPECT_EQ(install_mode(0001), 0701u);
  EXPECT_EQ(install_mode(0775), 0755u);
}

}  // namespace
}  // namespace burst
