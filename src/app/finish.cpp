#include "app/finish.h"

#include <filesystem>
#include <fstream>

#include "app/notify.h"
#include "report/calibration.h"
#include "util/private_file.h"

namespace burst {
namespace {

// Created 0600: a report can quote the job's errors and output (util/private_file.h).
bool write_text(const std::string& path, const std::string& text) {
  return write_private_file(path, text).ok();
}

}  // namespace

Result<ReportFiles> write_report_files(Store& store, const JobReport& report,
                                       const std::string& reports_dir, const Redactor& redact) {
  const std::string base = reports_dir + "/" + report.job.id;
  ReportFiles files{base + ".json", base + ".md", base + ".html"};
  std::error_code ec;
  std::filesystem::create_directories(reports_dir, ec);
  const bool written = write_text(files.json, redact(report_json(report))) &&
                       write_text(files.markdown, redact(report_markdown(report))) &&
                       write_text(files.html, redact(report_html(report)));
  if (!written)
    return make_error(ErrorCode::kUnavailable, "cannot write the report to " + reports_dir);
  // The job row as the report read it, now with where its report is.
  JobRecord job = report.job;
  job.report_path = files.json;
  if (Status st = store.update_job(job); !st.ok())
    return make_error(st.error().code, "cannot record the report's path: " + st.error().message);
  return files;
}

Result<ReportFiles> write_job_reports(Store& store, const std::string& reports_dir,
                                      const std::string& job_id, TimePoint as_of,
                                      const Redactor& redact) {
  auto report = build_job_report(store, job_id, as_of);
  if (!report.ok()) return report.error();
  return write_report_files(store, *report, reports_dir, redact);
}

Finished finish_job(const FinishDeps& d, const std::string& job_id, const Redactor& redact) {
  Finished f;
  auto report = build_job_report(d.store, job_id, d.clock.now());
  if (!report.ok()) {
    f.warnings.push_back("cannot build the report: " + report.error().message);
    return f;
  }
  if (auto files = write_report_files(d.store, *report, d.config.reports_dir, redact); files.ok()) {
    f.files = *files;
    f.summary = redact(report_summary(*report));
  } else {
    f.warnings.push_back(files.error().message);
  }
  // The measured run against the model's prediction calibrates this pipeline's next plan.
  if (auto sample = calibration_sample(*report)) {
    Status st = d.store.add_calibration(*sample);
    f.calibration_recorded = st.ok();
    if (!st.ok())
      f.warnings.push_back("cannot record the calibration sample: " + st.error().message);
  }
  if (std::string w = notify_job_finished(d.config, d.clock, *report, d.http); !w.empty())
    f.warnings.push_back(redact(w));
  return f;
}

}  // namespace burst
