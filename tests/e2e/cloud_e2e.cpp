#include "e2e/cloud_e2e.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace burst::testing {
namespace fs = std::filesystem;

std::string copy_tts_example(const BurstHome& home, const std::string& steps) {
  fs::copy(std::string(BURST_SOURCE_DIR) + "/examples/tts-render", home.work() + "/tts-render",
           fs::copy_options::recursive);
  const std::string questions_path = home.work() + "/tts-render/questions.txt";
  std::istringstream all(read_file(questions_path));
  std::string kept, line;
  for (int n = 0; n < kExampleQuestionsInTests && std::getline(all, line); ++n) kept += line + "\n";
  EXPECT_FALSE(std::getline(all, line).fail())
      << "the example has no more than " << kExampleQuestionsInTests << " questions";
  std::ofstream(questions_path, std::ios::trunc) << kept;
  const std::string spec = home.work() + "/tts-render.yaml";
  std::string text = read_file(std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml");
  const std::string shipped = "TTS_STEPS: \"8\"";
  const size_t at = text.find(shipped);
  EXPECT_NE(at, std::string::npos) << "the example's TTS_STEPS moved";
  if (at != std::string::npos) text.replace(at, shipped.size(), "TTS_STEPS: \"" + steps + "\"");
  std::ofstream(spec) << text;
  return spec;
}

void write_provider_config(const BurstHome& home, const std::string& provider,
                           const std::string& base_url, const std::vector<std::string>& extra) {
  fs::create_directories(home.root() + "/config");
  std::ofstream f(home.root() + "/config/config.yaml");
  f << "providers:\n  " << provider << ":\n    base_url: " << base_url << "\n";
  for (const auto& line : extra) f << "    " << line << "\n";
}

void expect_key_nowhere(const BurstHome& home, fakecloud::FakeCloud& cloud, const std::string& out,
                        const std::string& err, const std::string& key) {
  EXPECT_EQ(out.find(key), std::string::npos);
  EXPECT_EQ(err.find(key), std::string::npos);
  for (const auto& f : files_under(home.root()))
    EXPECT_EQ(read_file(f).find(key), std::string::npos) << f;
  for (const auto& e : cloud.state().request_log()) {
    EXPECT_TRUE(e.authorised) << e.method << " " << e.path;
    EXPECT_FALSE(e.key_leaked) << e.method << " " << e.path;
  }
  EXPECT_EQ(cloud.state().state_json().dump().find(key), std::string::npos);
}

}  // namespace burst::testing
