// A spec whose YAML document starts with ',' made yaml-cpp 0.7 loop forever, so `burst validate`
// hung (found by tests/fuzz/spec_fuzz.cpp). It is now a syntax error with a position.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/spec.h"

namespace burst {
namespace {

std::string first_error(const std::string& yaml) {
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec(yaml, "p.yaml", &errors);
  EXPECT_FALSE(spec.ok());
  return errors.empty() ? "" : errors.front().text;
}

TEST(SpecYamlHang, ADocumentStartingWithACommaIsASyntaxErrorNotAHang) {
  EXPECT_EQ(first_error(",name: x\n"),
            "p.yaml:1:1: YAML syntax error: a document cannot start with ','");
  EXPECT_EQ(first_error("# comment\n\n   ,a\n"),
            "p.yaml:3:4: YAML syntax error: a document cannot start with ','");
  EXPECT_EQ(first_error("name: x\n---\n,b\n"),
            "p.yaml:3:1: YAML syntax error: a document cannot start with ','");
  EXPECT_EQ(first_error("--- ,a\n"),
            "p.yaml:1:5: YAML syntax error: a document cannot start with ','");
}

TEST(SpecYamlHang, CommasElsewhereAreStillPlainYaml) {
  std::vector<SpecError> errors;
  EXPECT_TRUE(parse_spec("name: x\nrun: echo a,b\nenv: {A: \"1,2\"}\n", "p.yaml", &errors).ok());
}

}  // namespace
}  // namespace burst
