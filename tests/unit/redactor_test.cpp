// Secret values never reach the user's terminal or logs: every occurrence is replaced by a marker
// naming the secret.
#include "util/redactor.h"

#include <gtest/gtest.h>

#include <string>

namespace burst {
namespace {

TEST(Redactor, EmptyRedactorLeavesTextAlone) {
  Redactor r;
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r("token=abcdef"), "token=abcdef");
}

TEST(Redactor, MarkerNamesTheSecret) {
  Redactor r;
  r.add("HF_TOKEN", "hf_abc123");
  EXPECT_FALSE(r.empty());
  EXPECT_EQ(r("curl -H 'Authorization: Bearer hf_abc123'"),
            "curl -H 'Authorization: Bearer [secret HF_TOKEN]'");
}

TEST(Redactor, ReplacesEveryOccurrence) {
  Redactor r;
  r.add("API_KEY", "s3cr3t");
  EXPECT_EQ(r("s3cr3t and s3cr3t again, s3cr3ts3cr3t"),
            "[secret API_KEY] and [secret API_KEY] again, [secret API_KEY][secret API_KEY]");
}

TEST(Redactor, ReplacesSeveralSecrets) {
  Redactor r;
  r.add("A", "alpha-value");
  r.add("B", "bravo-value");
  EXPECT_EQ(r("a=alpha-value b=bravo-value"), "a=[secret A] b=[secret B]");
}

TEST(Redactor, LongestSecretFirstWhenOneContainsAnother) {
  // Added short first: a naive in-order pass would leave "[secret SHORT]-suffix" and leak the
  // rest of the long secret.
  Redactor r;
  r.add("SHORT", "abcd");
  r.add("LONG", "abcd-suffix-xyz");
  EXPECT_EQ(r("long=abcd-suffix-xyz short=abcd"), "long=[secret LONG] short=[secret SHORT]");

  Redactor reversed;
  reversed.add("LONG", "abcd-suffix-xyz");
  reversed.add("SHORT", "abcd");
  EXPECT_EQ(reversed("long=abcd-suffix-xyz short=abcd"), "long=[secret LONG] short=[secret SHORT]");
}

TEST(Redactor, MarkerIsNotRedactedAgain) {
  // A secret that occurs inside a marker (here: inside the name "secret") must not loop or
  // rewrite the marker.
  Redactor r;
  r.add("X", "secr");
  EXPECT_EQ(r("secr secr"), "[secret X] [secret X]");
}

// BUG: each secret is replaced in a separate pass over the already-redacted text, so a shorter
// secret that occurs inside an earlier marker rewrites that marker: with DB_PASSWORD="secret",
// "hf_abcdefgh" comes out as "[[secret DB_PASSWORD] HF_TOKEN]", naming the wrong secret.
TEST(Redactor, OneSecretDoesNotRewriteAnothersMarker) {
  Redactor r;
  r.add("HF_TOKEN", "hf_abcdefgh");
  r.add("DB_PASSWORD", "secret");
  EXPECT_EQ(r("token hf_abcdefgh, password secret"),
            "token [secret HF_TOKEN], password [secret DB_PASSWORD]");
}

TEST(Redactor, ValuesShorterThanFourCharactersAreNotRedacted) {
  Redactor r;
  r.add("ONE", "a");
  r.add("THREE", "abc");
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r("abc a abcabc"), "abc a abcabc");
  r.add("FOUR", "abcd");
  EXPECT_EQ(r("abc abcd"), "abc [secret FOUR]");
}

TEST(Redactor, EmptyValueIsIgnored) {
  Redactor r;
  r.add("EMPTY", "");
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r("anything"), "anything");
}

// A fake key in the PEM shape: its body lines are what a step that cats the key prints, one line
// at a time.
constexpr const char* kPem =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n"
    "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n"
    "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ\n"
    "Zg==\n"
    "-----END PRIVATE KEY-----\n";

TEST(Redactor, AMultiLineSecretIsRedactedWholeAndLineByLine) {
  Redactor r;
  r.add("SSH_KEY", kPem);
  EXPECT_EQ(r(std::string("key: ") + kPem + "done"), "key: [secret SSH_KEY]done");
  // Step output arrives line by line: no line of the key survives on its own.
  const std::string body = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu";
  EXPECT_EQ(r(body), "[secret SSH_KEY]");
  EXPECT_EQ(r("    " + body + "  "), "    [secret SSH_KEY]  ");  // re-indented
  EXPECT_EQ(r("-----BEGIN PRIVATE KEY-----"), "[secret SSH_KEY]");
  // The same key with Windows line endings is still the key.
  std::string crlf;
  for (const char* c = kPem; *c; ++c) crlf += *c == '\n' ? std::string("\r\n") : std::string(1, *c);
  EXPECT_EQ(r(crlf), "[secret SSH_KEY]");
}

TEST(Redactor, AJsonCredentialsLinesAreRedactedButNotItsBraces) {
  const std::string creds_json =
      "{\n"
      "  \"type\": \"service_account\",\n"
      "  \"private_key_id\": \"3f1c9a7be2d44c0f8a61b7e5d9c2a4f0e1b3c5d7\",\n"
      "  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE "
      "KEY-----\\n\"\n"
      "}\n";
  Redactor r;
  r.add("GCP_CREDENTIALS", creds_json);
  EXPECT_EQ(r(creds_json), "[secret GCP_CREDENTIALS]");
  EXPECT_EQ(r("  \"private_key_id\": \"3f1c9a7be2d44c0f8a61b7e5d9c2a4f0e1b3c5d7\","),
            "  [secret GCP_CREDENTIALS]");
  EXPECT_EQ(r("{"), "{");  // short lines of the value leave ordinary text alone
  EXPECT_EQ(r("}"), "}");
  EXPECT_EQ(r("if (x) {"), "if (x) {");
}

}  // namespace
}  // namespace burst
