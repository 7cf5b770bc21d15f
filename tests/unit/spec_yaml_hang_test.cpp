// yaml-cpp 0.7 (burst's YAML library before libyaml) left a ',' token outside a flow collection
// unconsumed, so loading every document of such a spec looped forever and `burst validate` hung
// (found by tests/fuzz/spec_fuzz.cpp). It is a syntax error at the comma, with libyaml too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "burst/spec.h"
#include "registry.h"

namespace burst {
namespace {

std::string first_error(const std::string& yaml) {
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec(yaml, "p.yaml", &errors, provider_names());
  EXPECT_FALSE(spec.ok());
  return errors.empty() ? "" : errors.front().text;
}

const char* kComma =
    "YAML syntax error: unexpected ',': a comma separates items only inside [ ] or { }";

TEST(SpecYamlHang, ADocumentStartingWithACommaIsASyntaxErrorNotAHang) {
  EXPECT_EQ(first_error(",name: x\n"), std::string("p.yaml:1:1: ") + kComma);
  EXPECT_EQ(first_error("# comment\n\n   ,a\n"), std::string("p.yaml:3:4: ") + kComma);
  EXPECT_EQ(first_error("name: x\n---\n,b\n"), std::string("p.yaml:3:1: ") + kComma);
  EXPECT_EQ(first_error("--- ,a\n"), std::string("p.yaml:1:5: ") + kComma);
}

TEST(SpecYamlHang, ACommaAfterAValueIsASyntaxErrorNotAHang) {
  EXPECT_EQ(first_error("\"\",\n"), std::string("p.yaml:1:3: ") + kComma);
  EXPECT_EQ(first_error("[a, b],\n"), std::string("p.yaml:1:7: ") + kComma);
  EXPECT_EQ(first_error("name: x\n---\n'a' ,\n"), std::string("p.yaml:3:5: ") + kComma);
  EXPECT_EQ(first_error("  cron: \"0 3 * * *\"   # nightly]\n, used by burstd\n"),
            std::string("p.yaml:2:1: ") + kComma);
}

TEST(SpecYamlHang, CommasElsewhereAreStillPlainYaml) {
  std::vector<SpecError> errors;
  EXPECT_TRUE(
      parse_spec("name: x\nrun: echo a,b\nenv: {A: \"1,2\"}\n", "p.yaml", &errors, provider_names())
          .ok());
  EXPECT_TRUE(parse_spec("name: x\nrun: echo a ,b\nenv: {A: 'x', B: '[1, 2]'}\n", "p.yaml", &errors,
                         provider_names())
                  .ok());
}

}  // namespace
}  // namespace burst
