// What a pod prints reaches the user's terminal and the job log safe (issue 15): escape sequences
// other than colours shown as text, a multi-line secret hidden line by line, a progress bar as its
// states, and a line without end cut at 64 KiB.
#include <gtest/gtest.h>

#include <string>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

constexpr const char* kKeyBody = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
const std::string kPodOutputKey =
    std::string("-----BEGIN PRIVATE KEY-----\n") + kKeyBody +
    "\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n"
    "-----END PRIVATE KEY-----\n";

TEST(E2EPodOutput, EscapesSecretsProgressAndLongLinesReachTheTerminalSafe) {
  BurstHome home;
  home.write("app/in.txt", "x");
  const std::string spec = home.write(
      "job.yaml",
      "version: 1\nname: pod-output\nvolume: {name: out-vol}\nsecrets: [SSH_KEY]\n"
      "resources: {providers: [local]}\n"
      "code: {dir: app}\n"
      "run: |\n"
      "  printf 'title \\033]0;pwned\\007 clip \\033]52;c;Y3VybA==\\033\\\\ clear \\033[2J\\n'\n"
      "  printf 'colour \\033[31mred\\033[0m\\n'\n"
      "  printf '%s\\n' \"$SSH_KEY\"\n"
      "  printf '\\r 10%%|#  |\\r 50%%|## |\\r100%%|###|\\n'\n"
      "  head -c 200000 /dev/zero | tr '\\0' y\n"
      "  echo; echo after-the-long-line\n");
  std::string out, err;
  int rc = run_burst(home, {"run", spec, "--yes"}, &out, &err, {{"SSH_KEY", kPodOutputKey}});
  ASSERT_EQ(rc, 0) << out << err;

  EXPECT_NE(out.find("title \\x1b]0;pwned\\x07 clip \\x1b]52;c;Y3VybA==\\x1b\\ clear \\x1b[2J"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("colour \x1b[31mred\x1b[0m"), std::string::npos) << "colours are kept";
  EXPECT_NE(out.find(" 50%|## |\n"), std::string::npos) << "each progress state is a line";
  EXPECT_NE(out.find(std::string(65536, 'y') + " [line cut at 65536 bytes]\n"), std::string::npos);
  EXPECT_EQ(out.find(std::string(65537, 'y')), std::string::npos);
  EXPECT_NE(out.find("after-the-long-line"), std::string::npos);
  EXPECT_NE(out.find("[secret SSH_KEY]"), std::string::npos);
  for (const std::string& text : {out, err}) {
    EXPECT_EQ(text.find("\x1b]"), std::string::npos);
    EXPECT_EQ(text.find('\x07'), std::string::npos);
    EXPECT_EQ(text.find(kKeyBody), std::string::npos);
  }
  for (const auto& f : files_under(home.state())) {
    if (f.find("/volumes/") != std::string::npos || f.find("/local/") != std::string::npos)
      continue;  // the pod's own files
    const std::string text = read_file(f);
    EXPECT_EQ(text.find(kKeyBody), std::string::npos) << "a line of the key is in " << f;
    EXPECT_EQ(text.find("\x1b]0;pwned"), std::string::npos) << "a raw escape is in " << f;
  }
}

}  // namespace
}  // namespace burst::testing
