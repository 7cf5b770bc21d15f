// The Markdown report holds text from the job (its error, a phase's detail, a pod's id, the
// artefact patterns that detail quotes), which a hostile pod or spec can shape: rendered by a
// Markdown viewer it must stay text (issue 29). HTML characters become entities, a pipe is
// escaped so a table keeps its cells, a line break does not end a table row.
#include <gtest/gtest.h>

#include <string>

#include "report/job_report.h"

namespace burst {
namespace {

TEST(ReportMarkdown, TextFromTheJobIsNeverHtmlAndNeverBreaksATable) {
  JobReport r;
  r.job.id = "j1";
  r.job.pipeline = "render";
  r.job.spec_path = "/w/job.yaml";
  r.job.provider = "runpod";
  r.job.error = "pull: pattern <svg onload=alert(1)> matched nothing";
  r.outcome = "failed";
  PhaseRecord pull;
  pull.job_id = "j1";
  pull.phase = Phase::kPull;
  pull.outcome = Outcome::kFailed;
  pull.detail = "out/<img src=x onerror=alert(2)>|*.txt: no such file\nnext | row";
  r.phases.push_back(pull);
  PodCost pod;
  pod.pod.role = "gpu";
  pod.pod.pod_id = "pod`<b>|x";
  pod.pod.gpu_type = "RTX_4090";
  r.pods.push_back(pod);
  const std::string md = report_markdown(r);
  EXPECT_EQ(md.find("<svg"), std::string::npos) << md;
  EXPECT_EQ(md.find("<img"), std::string::npos) << md;
  EXPECT_NE(md.find(": pull: pattern &lt;svg onload=alert(1)&gt; matched nothing"),
            std::string::npos)
      << md;
  // The phase row: one row, its detail one cell.
  EXPECT_NE(md.find("| out/&lt;img src=x onerror=alert(2)&gt;\\|*.txt: no such file next \\| "
                    "row |\n"),
            std::string::npos)
      << md;
  // A pod id inside a code span (literal text there, never HTML) cannot end the span or the cell.
  EXPECT_NE(md.find("| gpu `pod'<b>\\|x` | RTX_4090 |"), std::string::npos) << md;
}

}  // namespace
}  // namespace burst
