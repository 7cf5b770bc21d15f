// The YAML adapter's own nodes (src/yaml/yaml_node.h), built from libyaml's events: kinds, scalar
// styles (what YAML 1.2's core schema resolves), positions, aliases, and the limits that keep an
// untrusted spec from costing more than its size.
#include "yaml/yaml_node.h"

#include <gtest/gtest.h>

#include <string>

namespace burst::yaml {
namespace {

Node one(const std::string& text) {
  ParseResult r = parse_documents(text);
  EXPECT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(r.documents.size(), 1u);
  return r.documents.empty() ? Node() : r.documents.front();
}

std::string error_of(const std::string& text) {
  ParseResult r = parse_documents(text);
  if (!r.error) return "no error";
  EXPECT_TRUE(r.documents.empty());
  return std::to_string(r.error->pos.line) + ":" + std::to_string(r.error->pos.column) + ": " +
         r.error->message;
}

TEST(YamlNode, KindsStylesAndPositions) {
  Node doc =
      one("a: 1\n"
          "b: '1'\n"
          "c: ~\n"
          "d:\n"
          "e: [x, \"y\"]\n"
          "f: {g: null}\n"
          "h: |\n"
          "  text\n"
          "i: !!str 2\n");
  ASSERT_TRUE(doc.is_map());
  EXPECT_EQ(doc.size(), 8u);  // g is f's
  EXPECT_TRUE(doc["a"].is_plain());
  EXPECT_EQ(doc["a"].scalar(), "1");
  EXPECT_TRUE(doc["b"].is_scalar());
  EXPECT_FALSE(doc["b"].is_plain());
  EXPECT_TRUE(doc["b"].is_quoted());
  EXPECT_TRUE(doc["c"].is_null());
  EXPECT_TRUE(doc["d"].is_null());
  EXPECT_TRUE(static_cast<bool>(doc["d"]));  // present, with no value
  EXPECT_FALSE(static_cast<bool>(doc["zz"]));
  ASSERT_TRUE(doc["e"].is_sequence());
  EXPECT_EQ(doc["e"][1].scalar(), "y");
  EXPECT_TRUE(doc["e"][1].is_quoted());
  EXPECT_FALSE(static_cast<bool>(doc["e"][2]));
  EXPECT_TRUE(doc["f"]["g"].is_null());
  EXPECT_EQ(doc["h"].scalar(), "text\n");
  EXPECT_FALSE(doc["h"].is_plain());
  EXPECT_FALSE(doc["h"].is_quoted());
  EXPECT_EQ(doc["i"].scalar(), "2");
  EXPECT_FALSE(doc["i"].is_plain());  // tagged: a string, not a number
  EXPECT_EQ(doc["b"].pos().line, 2);
  EXPECT_EQ(doc["b"].pos().column, 4);
  EXPECT_EQ(doc["e"][1].pos().column, 8);
  // Entries in file order, keys with their positions.
  std::string keys;
  for (auto it = doc.begin(); it != doc.end(); ++it)
    keys += it->first.scalar() + std::to_string(it->first.pos().line);
  EXPECT_EQ(keys, "a1b2c3d4e5f6h7i9");
}

TEST(YamlNode, DuplicateKeysAreKeptInOrderAndTheFirstIsFound) {
  Node doc = one("a: 1\na: 2\n");
  EXPECT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc["a"].scalar(), "1");
}

TEST(YamlNode, AnAliasIsItsAnchorsNode) {
  Node doc = one("base: &b {x: 1}\nother: *b\nword: &w hi\nagain: *w\n");
  ASSERT_TRUE(doc["other"].is_map());
  EXPECT_EQ(doc["other"]["x"].scalar(), "1");
  EXPECT_EQ(doc["other"].pos().line, 1);  // where the anchored node is
  EXPECT_EQ(doc["again"].scalar(), "hi");
}

TEST(YamlNode, BadAliasesAreErrors) {
  EXPECT_EQ(error_of("a: *nope\n"), "1:4: unknown alias *nope");
  EXPECT_EQ(error_of("a: &x [1, *x]\n"), "1:11: alias *x is inside the node it names");
  // Anchors do not cross documents.
  EXPECT_EQ(error_of("a: &x 1\n---\nb: *x\n"), "3:4: unknown alias *x");
}

TEST(YamlNode, AliasesOfAliasesAreCountedAsCopiesAndABillionLaughsIsRefused) {
  // "Billion laughs": 9 levels of 9 aliases each would be 387,420,489 leaves if copied. The tree
  // shares the anchor's node, but every reader that turns it into lists copies it.
  std::string text = "l0: &l0 [x]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) text += (k ? ", " : "") + prev;
    text += "]\n";
  }
  ParseResult r = parse_documents(text);
  ASSERT_TRUE(r.error);
  EXPECT_TRUE(r.error->limit);
  EXPECT_EQ(r.error->message,
            "with its aliases expanded the YAML holds more than 65536 nodes (the limit is 4 "
            "times the file's size, at least 64 KiB, at most 16 MiB of text and 1,000,000 "
            "nodes): refused");
  EXPECT_EQ(r.error->pos.line, 6);  // l5 is the first level past 65,536 copies (9^5 = 59,049)
  // Three levels (729 leaves) are well within the floor and still read through the aliases.
  Node doc = one(text.substr(0, text.find("l4:")));
  EXPECT_EQ(doc["l3"][8][8][8][0].scalar(), "x");
}

TEST(YamlNode, AScalarAliasedManyTimesIsBoundedByTheFilesSize) {
  // The attack in small: one 10 KB anchored scalar aliased from 200 keys (2 MB of copies
  // from a 13 KB file). The bound is 4 x the file's size, or 64 KiB for a small file.
  std::string text = "big: &b \"" + std::string(10000, 'x') + "\"\n";
  for (int i = 0; i < 200; ++i) text += "k" + std::to_string(i) + ": *b\n";
  ParseResult r = parse_documents(text);
  ASSERT_TRUE(r.error);
  EXPECT_TRUE(r.error->limit);
  EXPECT_EQ(r.error->message,
            "with its aliases expanded the YAML holds more than 65536 bytes of text (the limit "
            "is 4 times the file's size, at least 64 KiB, at most 16 MiB of text and 1,000,000 "
            "nodes): refused");
  // big + 6 copies = 70,000 bytes > 65,536: the 6th alias (line 7, column 5) crosses it.
  EXPECT_EQ(error_of(text), "7:5: " + r.error->message);
  // Five copies fit: what a spec sharing a block of settings a few times does.
  std::string few = "big: &b \"" + std::string(10000, 'x') + "\"\n";
  for (int i = 0; i < 5; ++i) few += "k" + std::to_string(i) + ": *b\n";
  EXPECT_EQ(one(few)["k4"].scalar().size(), 10000u);
}

TEST(YamlNode, ALargeFileWithoutAliasesIsNeverOverItsBound) {
  // 200,000 short entries (a node per 2.5 bytes of text at worst): no aliases, no limit.
  std::string text = "[";
  for (int i = 0; i < 200000; ++i) text += i ? ",a" : "a";
  text += "]";
  Node doc = one(text);
  EXPECT_EQ(doc.size(), 200000u);
}

TEST(YamlNode, NestingDeeperThan64LevelsIsRefused) {
  EXPECT_EQ(error_of(std::string(65, '[') + std::string(65, ']')),
            "1:65: nested deeper than 64 levels");
  Node deep = one(std::string(64, '[') + std::string(64, ']'));
  EXPECT_TRUE(deep.is_sequence());
}

TEST(YamlNode, SyntaxErrorsSayWhereAndWhat) {
  EXPECT_EQ(error_of("a: [1, 2\nb: 3\n"),
            "2:2: did not find expected ',' or ']' (while parsing a flow sequence at 1:4)");
  EXPECT_EQ(error_of("a: b\n c: d\n"), "2:3: mapping values are not allowed in this context");
  EXPECT_EQ(error_of("a: 1\n,b\n"),
            "2:1: unexpected ',': a comma separates items only inside [ ] or { }");
  EXPECT_EQ(error_of("a: \"\xff\"\n"), "1:5: invalid leading UTF-8 octet");
}

TEST(YamlNode, DocumentsAreReadInOrder) {
  ParseResult r = parse_documents("a: 1\n---\nb: 2\n");
  ASSERT_FALSE(r.error);
  ASSERT_EQ(r.documents.size(), 2u);
  EXPECT_EQ(r.documents[1]["b"].scalar(), "2");
  EXPECT_EQ(r.documents[1].pos().line, 3);
  EXPECT_TRUE(parse_documents("# only a comment\n").documents.empty());
}

}  // namespace
}  // namespace burst::yaml
