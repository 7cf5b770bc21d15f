// Pod output reaches the user's terminal and the job log with printable text, UTF-8 and colours
// intact, and every other control sequence (title, clipboard, cursor moves, bells) shown as text.
#include "util/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

namespace burst {
namespace {

TEST(TerminalText, PrintableTextTabsAndUtf8AreKept) {
  EXPECT_EQ(terminal_safe("epoch 3/10\tloss=0.25"), "epoch 3/10\tloss=0.25");
  EXPECT_EQ(terminal_safe("température ✓ 训练 🚀"), "température ✓ 训练 🚀");
  EXPECT_EQ(terminal_safe(""), "");
}

TEST(TerminalText, SgrColourSequencesAreKept) {
  const std::string coloured = "\x1b[1;31mERROR\x1b[0m \x1b[38;2;255;0;0mred\x1b[m";
  EXPECT_EQ(terminal_safe(coloured), coloured);
}

TEST(TerminalText, TitleAndClipboardWritesAreShownAsText) {
  EXPECT_EQ(terminal_safe("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
  EXPECT_EQ(terminal_safe("\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x1b\\"),
            "\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x1b\\");
}

TEST(TerminalText, CursorMovesClearsAndDcsAreShownAsText) {
  EXPECT_EQ(terminal_safe("ok\x1b[2J\x1b[H"), "ok\\x1b[2J\\x1b[H");
  EXPECT_EQ(terminal_safe("\x1b[1A\x1b[K"), "\\x1b[1A\\x1b[K");
  EXPECT_EQ(terminal_safe("\x1bP+q\x1b\\"), "\\x1bP+q\\x1b\\");
  EXPECT_EQ(terminal_safe("\x1b[?1049h"), "\\x1b[?1049h");  // alternate screen
  EXPECT_EQ(terminal_safe("\x1b"), "\\x1b");
  EXPECT_EQ(terminal_safe("\x1b[31"), "\\x1b[31");  // unterminated
}

TEST(TerminalText, OtherControlBytesAreEscaped) {
  EXPECT_EQ(terminal_safe("a\bb\rc\x07\x7f"), "a\\x08b\\x0dc\\x07\\x7f");
  EXPECT_EQ(terminal_safe(std::string("nul\0here", 8)), "nul\\x00here");
}

TEST(TerminalText, C1ControlsAndInvalidUtf8AreEscaped) {
  EXPECT_EQ(terminal_safe("\x9b"
                          "2J"),
            "\\x9b2J");                                         // a raw 8-bit CSI
  EXPECT_EQ(terminal_safe("\xc2\x9b"), "\\xc2\\x9b");           // U+009B, the CSI as UTF-8
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(terminal_safe("cut \xe2\x9c"), "cut \\xe2\\x9c");   // truncated ✓
}

TEST(TerminalText, EscapingTwiceChangesNothing) {
  for (const std::string& s :
       std::vector<std::string>{"\x1b]0;t\x07", "\x1b[31mred\x1b[0m", "\xc2\x9b\xff", "a\\x1bb"}) {
    const std::string once = terminal_safe(s);
    EXPECT_EQ(terminal_safe(once), once) << s;
  }
}

}  // namespace
}  // namespace burst
