// The registry is the only place that knows providers by name: no production source outside
// providers/ (src/, include/) holds a provider's name as a string literal, so plan, cost, spec,
// config, job and the entry points read ProviderTraits instead of comparing names. A literal that
// is the same word but not a provider (the "local" upload hand-off, the "ssh" phase) says so on
// its line with the marker comment `// not a provider name`. The scan reads the sources at
// BURST_SOURCE_DIR; the second test proves it fails on an added `== "vast"` in src/plan.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fakes/temp_dir.h"
#include "registry.h"

namespace burst {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMarker = "// not a provider name";

// The line without its // comment (a // inside a string literal is kept).
std::string code_part(const std::string& line) {
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string && c == '\\') {
      ++i;
    } else if (c == '"') {
      in_string = !in_string;
    } else if (!in_string && c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
      return line.substr(0, i);
    }
  }
  return line;
}

// "file:line: text" for every line under `root`'s src/ and include/ that holds a registry name as
// a string literal ("vast") outside a comment and without the marker.
std::vector<std::string> provider_name_literals(const fs::path& root) {
  std::vector<std::string> names;
  for (const auto& e : provider_table()) names.push_back(std::string("\"") + e.name + "\"");
  std::vector<std::string> found;
  for (const char* dir : {"src", "include"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        if (line.find(kMarker) != std::string::npos) continue;
        const std::string code = code_part(line);
        for (const std::string& name : names) {
          if (code.find(name) == std::string::npos) continue;
          found.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n) +
                          ": " + line);
          break;
        }
      }
    }
  }
  return found;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(ProviderNamesCheck, NoProductionSourceOutsideProvidersNamesAProvider) {
  const std::vector<std::string> found = provider_name_literals(BURST_SOURCE_DIR);
  EXPECT_TRUE(found.empty())
      << "provider names compared outside providers/ (read ProviderTraits from the registry row "
         "instead, or mark a literal that is not a provider with `"
      << kMarker << "`):\n"
      << joined(found);
}

TEST(ProviderNamesCheck, FailsOnAnAddedNameComparisonInPlan) {
  TempDir dir;
  fs::create_directories(fs::path(dir.path()) / "src/plan");
  std::ofstream(fs::path(dir.path()) / "src/plan/billing.cpp")
      << "// a comment may say \"vast\"\n"
      << "bool coarse(const Offer& o) { return o.provider == \"vast\"; }\n"
      << "const char* h = \"local\";  " << kMarker << "\n";
  const std::vector<std::string> found = provider_name_literals(dir.path());
  ASSERT_EQ(found.size(), 1u) << joined(found);
  EXPECT_EQ(found[0].substr(0, found[0].find(": ")), "src/plan/billing.cpp:2");
}

}  // namespace
}  // namespace burst
