// `burst report [JOB]`: one job's cost report (the latest by default), or a roll-up over a
// month or a date range. Built from the store alone: no provider is asked anything, so it works
// offline and says the same thing every time.
#include <fstream>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "report/job_report.h"
#include "report/rollup.h"

namespace burst {
namespace {

int emit(const std::string& text, const std::string& output) {
  if (output.empty() || output == "-") {
    std::cout << text;
    return kExitOk;
  }
  std::ofstream f(output, std::ios::trunc);
  f << text;
  if (!f) return fail(kExitFailure, "cannot write " + output);
  std::cout << output << "\n";
  return kExitOk;
}

// [from, to) and a label from --month / --since / --until; nullopt when none was given.
Result<std::optional<Rollup>> rollup_of(Store& store, const ReportArgs& a, const Config& config,
                                        TimePoint now) {
  int64_t from = 0, to = INT64_MAX;
  std::string label;
  if (!a.month.empty()) {
    if (a.month.size() != 7) return make_error(ErrorCode::kInvalid, "--month: expected 2026-11");
    auto p = parse_period(a.month);
    if (!p.ok()) return make_error(ErrorCode::kInvalid, "--month: " + p.error().message);
    std::tie(from, to) = *p;
    label = a.month;
  } else if (!a.since.empty() || !a.until.empty()) {
    if (!a.since.empty()) {
      auto p = parse_period(a.since);
      if (!p.ok()) return make_error(ErrorCode::kInvalid, "--since: " + p.error().message);
      from = p->first;
    }
    if (!a.until.empty()) {
      auto p = parse_period(a.until);
      if (!p.ok()) return make_error(ErrorCode::kInvalid, "--until: " + p.error().message);
      to = p->second;  // inclusive: the whole of that day or month
    }
    if (to <= from) return make_error(ErrorCode::kInvalid, "--until is before --since");
    label = (a.since.empty() ? "start" : a.since) + " .. " + (a.until.empty() ? "now" : a.until);
  } else {
    return std::optional<Rollup>();
  }
  RollupOptions opt;
  opt.usd_per_kwh = a.usd_per_kwh;
  opt.life_years = a.life_years;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (catalog.ok()) opt.catalog = &*catalog;
  auto r = build_rollup(store, from, to, label, now, opt);
  if (!r.ok()) return r.error();
  return std::optional<Rollup>(std::move(r).value());
}

}  // namespace

int cmd_report(const ReportArgs& given) {
  ReportArgs args = given;
  if (args.json) {
    if (args.format != "md" && args.format != "json")
      return fail(kExitUsage, "--json and --format " + args.format + ": give one");
    args.format = "json";
  }
  if (args.format != "md" && args.format != "json" && args.format != "html")
    return fail(kExitUsage, "--format: \"" + args.format + "\" is not one of md, json, html");
  if (!args.job.empty() && (!args.month.empty() || !args.since.empty() || !args.until.empty()))
    return fail(kExitUsage, "give a job or a period (--month, --since/--until), not both");
  if (!(args.usd_per_kwh >= 0) || !(args.life_years > 0))
    return fail(kExitUsage, "--usd-per-kwh must be >= 0 and --life-years > 0");
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  auto store = open_store(*config);
  if (!store.ok()) return fail(kExitConfig, store.error().message);
  SystemClock clock;
  auto rollup = rollup_of(**store, args, *config, clock.now());
  if (!rollup.ok())
    return fail(rollup.error().code == ErrorCode::kInvalid ? kExitUsage : kExitFailure,
                rollup.error().message);
  if (*rollup) {
    const Rollup& r = **rollup;
    return emit(args.format == "json"   ? rollup_json(r)
                : args.format == "html" ? rollup_html(r)
                                        : rollup_markdown(r),
                args.output);
  }
  std::string id = args.job;
  if (id.empty()) {
    auto latest = (*store)->recent_jobs(1);
    if (!latest.ok()) return fail(kExitFailure, latest.error().message);
    if (latest->empty()) return fail(kExitNotFound, "no jobs yet");
    id = latest->front().id;
  }
  auto report = build_job_report(**store, id, clock.now());
  if (!report.ok()) return fail(report.error());  // an unknown job exits 4
  return emit(args.format == "json"   ? report_json(*report)
              : args.format == "html" ? report_html(*report)
                                      : report_markdown(*report),
              args.output);
}

}  // namespace burst
