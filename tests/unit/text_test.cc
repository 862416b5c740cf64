// Unit tests of the one escaping function (core/text.h printable): what a peer sends never
// reaches a terminal or a log raw (review N7: a fab_* server printed a client's escapes).
#include "core/text.h"

#include <gtest/gtest.h>

#include <string>

namespace fabperf {
namespace {

TEST(PrintableTest, TerminalControlsBecomeQuestionMarks) {
  EXPECT_EQ(printable("\x1b]0;owned\x07\x1b[2J"), "?]0;owned??[2J");
  EXPECT_EQ(printable(std::string("a\0b\x7f", 4)), "a?b?");
  EXPECT_EQ(printable("tab\there\nnext\r"), "tab?here?next?");
  // C1 controls in UTF-8 (U+009B is an 8-bit CSI), the line separators, bidi overrides.
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "?2J");
  EXPECT_EQ(printable("a\xe2\x80\xa8"
                      "b\xe2\x80\xae"
                      "c\xe2\x81\xa6"),
            "a?b?c?");
}

TEST(PrintableTest, UTF8StaysAndEverythingElseIsEscaped) {
  const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  EXPECT_EQ(printable(text), text);
  EXPECT_EQ(printable("\x9b"
                      "x\xff\xc3"),
            "?x??");  // stray bytes, a cut sequence
  EXPECT_EQ(printable("\xc0\xaf"
                      "\xed\xa0\x80"),
            "?????");  // overlong, surrogate
}

TEST(PrintableTest, CutsAtMaxAndSaysSo) {
  EXPECT_EQ(printable("abcdef", 3), "abc...");
  EXPECT_EQ(printable("abc", 3), "abc");
  EXPECT_EQ(printable("ab\xc3\xa9", 3), "ab?...");  // a sequence cut by the limit
}

}  // namespace
}  // namespace fabperf
