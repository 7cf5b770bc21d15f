// A planted marker, set as a cloud API key and as a pipeline secret in the environment, never
// appears in any report `burst report` writes (job and roll-up, every format): reports read the
// store alone, where JobRunner only ever writes redacted text.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "fakes/temp_dir.h"
#include "report/job_history.h"

namespace burst {
namespace {

constexpr const char* kMarker = "planted-secret-7f3a9c";

std::string secret_slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Sets environment variables for one test and restores them after.
class ScopedEnv {
 public:
  void set(const std::string& name, const std::string& value) {
    const char* old = getenv(name.c_str());
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(ReportSecrets, PlantedMarkerAppearsInNoReport) {
  TempDir home;
  ScopedEnv env;
  env.set("BURST_STATE_DIR", home.path() + "/state");
  env.set("BURST_CONFIG_DIR", home.path() + "/config");
  env.set("RUNPOD_API_KEY", kMarker);
  env.set("E2E_TOKEN", kMarker);
  {
    auto store = open_sqlite_store(home.path() + "/state/burst.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    HistoryJob h;
    h.start_ms = 1794312000000;  // 2026-11-10T12:00:00Z
    h.phases = full_phases(100);
    h.outcomes = {{"run", "failed"}};
    h.state = JobState::kFailed;
    h.error = "run: token=[secret E2E_TOKEN] rejected";  // as the Redactor leaves it
    record_history(**store, h);
  }
  std::vector<std::string> files;
  for (const char* format : {"md", "json", "html"}) {
    ReportArgs job;
    job.format = format;
    job.output = home.path() + "/job." + format;
    ASSERT_EQ(cmd_report(job), 0) << format;
    files.push_back(job.output);
    ReportArgs month;
    month.month = "2026-11";
    month.format = format;
    month.output = home.path() + "/month." + format;
    ASSERT_EQ(cmd_report(month), 0) << format;
    files.push_back(month.output);
  }
  for (const std::string& f : files) {
    const std::string text = secret_slurp(f);
    EXPECT_FALSE(text.empty()) << f;
    EXPECT_EQ(text.find(kMarker), std::string::npos) << f;
  }
  EXPECT_NE(secret_slurp(home.path() + "/job.md").find("[secret E2E_TOKEN]"), std::string::npos)
      << "the redacted placeholder is what the report shows";
}

}  // namespace
}  // namespace burst
