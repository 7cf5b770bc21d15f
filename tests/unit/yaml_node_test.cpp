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

TEST(YamlNode, ManyAliasesOfAliasesCostNothing) {
  // "Billion laughs": 9 levels of 9 aliases each would be 387,420,489 leaves if copied.
  std::string text = "l0: &l0 [x]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) text += (k ? ", " : "") + prev;
    text += "]\n";
  }
  Node doc = one(text);
  EXPECT_EQ(doc["l9"][8][8][8][8][8][8][8][8][8][0].scalar(), "x");
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
