// A step's output becomes display lines with bounded memory: a line without a newline is cut,
// a "\r" progress bar shows as its states, and the reattach offsets stay exact.
#include "job/line_splitter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace burst {
namespace {

struct Lines {
  std::vector<std::string> got;
  LineSplitter split;
  explicit Lines(size_t max = LineSplitter::kMaxLine)
      : split([this](const std::string& l) { got.push_back(l); }, max) {}
  void feed(const std::string& s) { split.feed(s.data(), s.size()); }
};

TEST(LineSplitter, NewlinesEndLinesAndEmptyLinesAreKept) {
  Lines l;
  l.feed("one\n\ntw");
  EXPECT_EQ(l.got, (std::vector<std::string>{"one", ""}));
  EXPECT_EQ(l.split.complete_bytes(), 5u);
  l.feed("o\nthree");
  l.split.flush();
  EXPECT_EQ(l.got, (std::vector<std::string>{"one", "", "two", "three"}));
  EXPECT_EQ(l.split.complete_bytes(), 9u) << "the unfinished last line is not complete";
}

TEST(LineSplitter, CrlfIsOneLineEndEvenSplitAcrossFeeds) {
  Lines l;
  l.feed("a\r");
  EXPECT_TRUE(l.got.empty());
  EXPECT_EQ(l.split.complete_bytes(), 0u) << "a \r counts once the next byte is seen";
  l.feed("\n\r\nb\r\n");
  EXPECT_EQ(l.got, (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(l.split.complete_bytes(), 8u);
}

TEST(LineSplitter, AProgressBarShowsItsStatesAsLines) {
  Lines l;
  l.feed("\r 10%|#    |\r 50%|###  |\r\r100%|#####|\ndone\n");
  EXPECT_EQ(l.got, (std::vector<std::string>{" 10%|#    |", " 50%|###  |", "100%|#####|", "done"}));
  EXPECT_EQ(l.split.complete_bytes(), 43u);
}

TEST(LineSplitter, ACarriageReturnOnlyStreamNeverGrowsALine) {
  Lines l(16);
  const std::string state = "\r 42% eta 10:00:00";  // 18 bytes a state
  for (int i = 0; i < 1000; ++i) l.feed(state);
  l.feed("\n");
  ASSERT_EQ(l.got.size(), 1000u);
  EXPECT_EQ(l.got[0], " 42% eta 10:00:0 [line cut at 16 bytes]");
  EXPECT_EQ(l.split.complete_bytes(), 18001u);
}

TEST(LineSplitter, ALongLineIsShownOnceCutAndTheRestDropped) {
  Lines l(8);
  l.feed("abcdefghij");
  EXPECT_EQ(l.got, (std::vector<std::string>{"abcdefgh [line cut at 8 bytes]"}));
  for (int i = 0; i < 1000; ++i) l.feed(std::string(1000, 'z'));
  l.feed("tail\nnext\n");
  EXPECT_EQ(l.got, (std::vector<std::string>{"abcdefgh [line cut at 8 bytes]", "next"}));
  EXPECT_EQ(l.split.complete_bytes(), 10u + 1000000u + 5u + 5u);
}

TEST(LineSplitter, ALineOfExactlyTheLimitIsNotCut) {
  Lines l(4);
  l.feed("abcd\n");
  EXPECT_EQ(l.got, (std::vector<std::string>{"abcd"}));
}

TEST(LineSplitter, TheCutNeverSplitsAUtf8Character) {
  Lines l(8);
  l.feed("abcdef\xe2\x9c\x93xyz\n");  // the check mark would straddle byte 8
  EXPECT_EQ(l.got, (std::vector<std::string>{"abcdef [line cut at 8 bytes]"}));
}

TEST(LineSplitter, ByteAtATimeGivesTheSameLinesAndOffsets) {
  const std::string text = "x\r\ny\rz\r\r\n\nlong-line-here\rq";
  Lines whole(6), bytes(6);
  whole.feed(text);
  for (char c : text) bytes.feed(std::string(1, c));
  EXPECT_EQ(whole.got, bytes.got);
  EXPECT_EQ(whole.split.complete_bytes(), bytes.split.complete_bytes());
}

}  // namespace
}  // namespace burst
