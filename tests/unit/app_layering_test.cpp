// The application layer's place in the include graph (docs/architecture.md, "The application
// layer"): src/cli/ and src/daemon/ are two front ends over src/app/, so burstd never includes the
// CLI, the use cases include neither front end, and the core modules below them (job, report,
// plan) never reach up into app/. Scans the source tree, so a stray include fails here even before
// the build's own layering check.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace burst {
namespace {

namespace fs = std::filesystem;

// "src/daemon/x.cpp:12: #include \"cli/y.h\"" for each include of `prefix` under src/`dir`.
std::vector<std::string> includes_of(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> found;
  const fs::path root = fs::path(BURST_SOURCE_DIR) / "src" / dir;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream f(e.path());
    std::string line;
    for (int n = 1; std::getline(f, line); ++n)
      if (line.rfind("#include \"" + prefix, 0) == 0)
        found.push_back(fs::relative(e.path(), BURST_SOURCE_DIR).string() + ":" +
                        std::to_string(n) + ": " + line);
  }
  return found;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(AppLayering, DaemonIncludesNothingFromTheCli) {
  auto found = includes_of("daemon", "cli/");
  EXPECT_TRUE(found.empty()) << "burstd reaches into the CLI; call src/app/ instead:\n"
                             << joined(found);
}

TEST(AppLayering, UseCasesIncludeNeitherFrontEnd) {
  auto found = includes_of("app", "cli/");
  auto daemon = includes_of("app", "daemon/");
  found.insert(found.end(), daemon.begin(), daemon.end());
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(AppLayering, CoreModulesDoNotReachUpIntoTheApplicationLayer) {
  std::vector<std::string> found;
  for (const char* dir : {"job", "report", "plan", "spec", "cost", "sync", "schedule", "store"})
    for (const char* up : {"app/", "cli/", "daemon/"}) {
      auto f = includes_of(dir, up);
      found.insert(found.end(), f.begin(), f.end());
    }
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(AppLayering, TheRunnerRendersNoReport) {
  auto found = includes_of("job", "report/");
  EXPECT_TRUE(found.empty()) << "reports are written by app::finish_job (src/app/finish.h):\n"
                             << joined(found);
}

}  // namespace
}  // namespace burst
