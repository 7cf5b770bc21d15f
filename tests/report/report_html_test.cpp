// The HTML reports: the committed examples under docs/ are exactly what the code renders from
// the example histories (regenerate with BURST_UPDATE_EXAMPLES=1), and they render in headless
// Chromium with their SVG charts in the DOM and no console errors.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fakes/temp_dir.h"
#include "report/report_examples.h"

namespace burst {
namespace {
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Examples {
  std::string job_html, month_html;
};

Examples render_examples(const TempDir& dir) {
  auto store = open_sqlite_store(":memory:");
  EXPECT_TRUE(store.ok());
  Examples out;
  if (!store.ok()) return out;
  record_example_month(**store);
  HistoryJob one = example_job();
  record_history(**store, one);
  auto job = build_job_report(**store, one.id, example_as_of());
  EXPECT_TRUE(job.ok());
  if (job.ok()) out.job_html = report_html(*job);
  auto cat = load_gpu_catalog(dir.path() + "/no-config");
  RollupOptions opt;
  if (cat.ok()) opt.catalog = &*cat;
  auto month = build_rollup(**store, kExampleNov1, kExampleNov1 + 30 * kExampleDay, "2026-11",
                            example_as_of(), opt);
  EXPECT_TRUE(month.ok());
  if (month.ok()) out.month_html = rollup_html(*month);
  return out;
}

TEST(ReportExamples, DocsExamplesMatchWhatTheCodeRenders) {
  TempDir dir;
  Examples ex = render_examples(dir);
  const std::string docs = std::string(BURST_SOURCE_DIR) + "/docs/";
  if (getenv("BURST_UPDATE_EXAMPLES")) {
    std::ofstream(docs + "example-report.html") << ex.job_html;
    std::ofstream(docs + "example-monthly-report.html") << ex.month_html;
  }
  EXPECT_EQ(slurp(docs + "example-report.html"), ex.job_html)
      << "docs/example-report.html is stale: rerun with BURST_UPDATE_EXAMPLES=1";
  EXPECT_EQ(slurp(docs + "example-monthly-report.html"), ex.month_html)
      << "docs/example-monthly-report.html is stale: rerun with BURST_UPDATE_EXAMPLES=1";
}

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const char* path = getenv("PATH");
    std::stringstream dirs(path ? path : "");
    std::string d;
    while (std::getline(dirs, d, ':'))
      if (!d.empty() && access((d + "/" + name).c_str(), X_OK) == 0) return d + "/" + name;
  }
  return "";
}

// Runs headless Chromium on `html`: its DOM after loading, a screenshot, and its log.
struct Rendered {
  int rc = -1;
  std::string dom, log;
  uintmax_t png_bytes = 0;
};

// Chromium takes seconds per start on a loaded machine: the screenshot only where asked.
Rendered render(const std::string& chromium, const TempDir& dir, const std::string& name,
                const std::string& html, bool screenshot) {
  const std::string file = dir.path() + "/" + name + ".html";
  std::ofstream(file) << html;
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions"
      " --enable-logging=stderr --v=0 --user-data-dir=" +
      dir.path() + "/profile-" + name + " ";
  Rendered r;
  const std::string dom_cmd = "timeout 120 " + chromium + flags + "--dump-dom file://" + file +
                              " >" + dir.path() + "/dom.txt 2>" + dir.path() + "/log.txt";
  r.rc = std::system(dom_cmd.c_str());
  r.dom = slurp(dir.path() + "/dom.txt");
  r.log = slurp(dir.path() + "/log.txt");
  if (!screenshot) return r;
  const std::string png = dir.path() + "/" + name + ".png";
  const std::string shot_cmd = "timeout 120 " + chromium + flags + "--window-size=900,2400" +
                               " --screenshot=" + png + " file://" + file + " >/dev/null 2>&1";
  (void)std::system(shot_cmd.c_str());
  std::error_code ec;
  r.png_bytes = fs::exists(png, ec) ? fs::file_size(png, ec) : 0;
  return r;
}

TEST(ReportChromium, HtmlReportsRenderWithTheirChartsInTheDom) {
  const std::string chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/setup installs it on Debian): the HTML "
                    "reports were not rendered in a browser";
  TempDir dir;
  Examples ex = render_examples(dir);
  Rendered job = render(chromium, dir, "job", ex.job_html, true);
  ASSERT_EQ(job.rc, 0) << job.log;
  EXPECT_NE(job.dom.find("data-chart=\"gantt\""), std::string::npos) << job.dom.substr(0, 500);
  EXPECT_NE(job.dom.find("data-chart=\"cost-breakdown\""), std::string::npos);
  EXPECT_NE(job.dom.find("<rect"), std::string::npos);
  EXPECT_EQ(job.log.find(":CONSOLE("), std::string::npos) << job.log;
  EXPECT_GT(job.png_bytes, 1000u) << "no screenshot";
  Rendered month = render(chromium, dir, "month", ex.month_html, false);
  ASSERT_EQ(month.rc, 0) << month.log;
  EXPECT_NE(month.dom.find("data-chart=\"trend\""), std::string::npos);
  EXPECT_NE(month.dom.find("<polyline"), std::string::npos);
  EXPECT_EQ(month.log.find(":CONSOLE("), std::string::npos) << month.log;
}

}  // namespace
}  // namespace burst
