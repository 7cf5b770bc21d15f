// The pod's answer to the first part of a sync (tar present, old manifest, stat records, "END")
// is read with limits, whichever way it is split into reads.
#include <gtest/gtest.h>

#include <string>

#include "sync/sync_manifest.h"

namespace burst {
namespace {

const std::string kManifest =
    "burst-manifest 1\nf\t644\t5\t1700000000\tabc\ta.py\nd\t755\t0\t0\t-\tsrc\n";

std::string answer() {
  using namespace std::string_literals;
  return "T1\n" + kManifest + "\0"s + "81a4\t5\t1700000000\ta.py\0"s + "41ed\t4096\t1\tsrc\0"s +
         "zz\tnot\ta\tstat\0"s + "END\0"s;
}

TEST(SyncProbeReply, TheWholeAnswerParses) {
  auto r = parse_probe_reply(answer());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->has_tar);
  ASSERT_EQ(r->manifest.size(), 2u);
  EXPECT_EQ(r->manifest.at("a.py").sha256, "abc");
  ASSERT_EQ(r->remote.size(), 2u) << "the record that is no stat is skipped";
  EXPECT_EQ(r->remote.at("a.py").type, 'f');
  EXPECT_EQ(r->remote.at("a.py").mode, 0644u);
  EXPECT_EQ(r->remote.at("src").type, 'd');
}

TEST(SyncProbeReply, SplitAnywhereItGivesTheSameAnswer) {
  const std::string all = answer();
  for (size_t cut = 0; cut <= all.size(); ++cut) {
    ProbeReplyReader reader;
    auto first = reader.feed(all.data(), cut);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(*first, cut == all.size()) << cut;
    auto second = reader.feed(all.data() + cut, all.size() - cut);
    ASSERT_TRUE(second.ok() && *second) << cut;
    EXPECT_EQ(reader.reply().remote.size(), 2u) << cut;
    EXPECT_EQ(reader.reply().manifest.size(), 2u) << cut;
  }
}

TEST(SyncProbeReply, NoManifestAndNoTar) {
  using namespace std::string_literals;
  auto r = parse_probe_reply("T0\n\0END\0"s);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->has_tar);
  EXPECT_TRUE(r->manifest.empty());
  EXPECT_TRUE(r->remote.empty());
}

TEST(SyncProbeReply, AnAnswerWithoutItsEndIsAnError) {
  auto r = parse_probe_reply(answer().substr(0, answer().size() - 2));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ended early"), std::string::npos);
}

TEST(SyncProbeReply, AnAnswerOverTheLimitIsRefused) {
  ProbeReplyReader reader(1000);
  const std::string chunk(400, 'm');
  EXPECT_TRUE(reader.feed(chunk.data(), chunk.size()).ok());
  EXPECT_TRUE(reader.feed(chunk.data(), chunk.size()).ok());
  auto over = reader.feed(chunk.data(), chunk.size());
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, ErrorCode::kRemoteFailed);
  EXPECT_NE(over.error().message.find("longer than 1000 bytes"), std::string::npos);
}

TEST(SyncProbeReply, AStatRecordOverItsLimitIsRefused) {
  using namespace std::string_literals;
  ProbeReplyReader reader;
  const std::string head = "T1\n\0"s;
  ASSERT_TRUE(reader.feed(head.data(), head.size()).ok());
  const std::string endless(ProbeReplyReader::kMaxRecord + 1, 'x');  // never NUL-ended
  auto r = reader.feed(endless.data(), endless.size());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("stat record longer than"), std::string::npos);
  const std::string ended = endless + "\0"s;
  ProbeReplyReader whole;
  ASSERT_TRUE(whole.feed(head.data(), head.size()).ok());
  EXPECT_FALSE(whole.feed(ended.data(), ended.size()).ok()) << "ended, but still too long";
}

}  // namespace
}  // namespace burst
