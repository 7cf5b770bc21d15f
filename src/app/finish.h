// What happens after a job has ended, in one place for `burst run`, burstd, `burst reap` and
// burstd's recovery:
//   write_job_reports  the one report writer: builds the job's cost report from the store alone
//                      (report/job_report.h) and writes <reports_dir>/<job>.json, .md and .html,
//                      each passed through `redact`, then records the JSON's path as the job's
//                      report_path. A job that ends without its runner (reaped, recovered)
//                      calls this alone.
//   finish_job         builds the report once and writes it the same way, then records the
//                      calibration sample the job contributes (a succeeded job with a timed
//                      estimate; report/calibration.h), then sends the webhook (app/notify.h).
//                      Called once per job the runner ran (app/run_job.h). It never changes the
//                      job's outcome: what fails becomes a warning for the caller to print.
#pragma once

#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/config.h"
#include "burst/http.h"
#include "burst/store.h"
#include "report/job_report.h"
#include "util/redactor.h"

namespace burst {

struct ReportFiles {
  std::string json, markdown, html;  // full paths
};

// Writes the three files of a report built from `store` and records the JSON's path as the
// job's report_path. kUnavailable "cannot write the report to DIR" when a file cannot be written
// (report_path is then left as it was); the store's error when the job cannot be updated.
Result<ReportFiles> write_report_files(Store& store, const JobReport& report,
                                       const std::string& reports_dir, const Redactor& redact);

// Builds the job's report from the store as of `as_of` and writes it (write_report_files).
// Errors: the store's (the job unknown or unreadable) and write_report_files'.
Result<ReportFiles> write_job_reports(Store& store, const std::string& reports_dir,
                                      const std::string& job_id, TimePoint as_of,
                                      const Redactor& redact = Redactor());

struct FinishDeps {
  Store& store;
  Clock& clock;
  const Config& config;  // reports_dir, notify
  // Where the webhook is POSTed; null: a libcurl client, made only when a webhook is configured.
  HttpClient* http = nullptr;
};

struct Finished {
  ReportFiles files;                  // empty when the report could not be written
  std::string summary;                // a few redacted lines for the terminal; "" without a report
  bool calibration_recorded = false;  // this job's sample was added to the calibration table
  std::vector<std::string> warnings;  // e.g. "cannot notify the webhook: ..."
};

Finished finish_job(const FinishDeps& deps, const std::string& job_id, const Redactor& redact);

}  // namespace burst
