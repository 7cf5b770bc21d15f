#include "daemon/pipelines.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "registry.h"

namespace burst::daemon {
namespace fs = std::filesystem;

Result<ScheduledPipeline> compile_schedule(const PipelineSpec& spec) {
  const Schedule& s = *spec.schedule;
  const std::string where = spec.path + ":" + std::to_string(s.pos.line) + ":" +
                            std::to_string(s.pos.column) + ": schedule";
  schedule::CronError cron_error;
  auto cron = schedule::CronExpr::parse(s.cron, &cron_error);
  if (!cron) return make_error(ErrorCode::kInvalid, where + ".cron: " + cron_error.text());
  auto zone = schedule::load_time_zone(s.timezone);
  if (!zone) return make_error(ErrorCode::kInvalid, where + ".timezone: " + zone.error().message);
  auto missed = schedule::parse_missed_policy(s.missed);
  if (!missed)
    return make_error(ErrorCode::kInvalid,
                      where + ".missed: expected skip or run-once, got \"" + s.missed + "\"");
  return ScheduledPipeline{spec, *cron, std::move(*zone), *missed};
}

PipelineLoad load_pipelines(const DaemonConfig& config) {
  PipelineLoad out;
  std::vector<std::string> files = config.pipelines;
  if (!config.pipelines_dir.empty()) {
    std::error_code ec;
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(config.pipelines_dir, ec)) {
      auto ext = e.path().extension().string();
      if (e.is_regular_file(ec) && (ext == ".yaml" || ext == ".yml"))
        found.push_back(e.path().string());
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
    if (ec) out.errors.push_back(config.pipelines_dir + ": " + ec.message());
  }
  std::set<std::string> names;
  for (const auto& file : files) {
    std::vector<SpecError> errors;
    auto spec = load_spec_file(file, &errors, provider_names());
    if (!spec) {
      if (errors.empty()) out.errors.push_back(file + ": " + spec.error().message);
      for (const auto& e : errors) out.errors.push_back(e.text);
      continue;
    }
    if (!spec->schedule) {
      out.unscheduled.push_back(file);
      continue;
    }
    if (!names.insert(spec->name).second) {
      out.errors.push_back(file + ": name: another pipeline is already called \"" + spec->name +
                           "\"; schedules are kept by name");
      continue;
    }
    auto compiled = compile_schedule(*spec);
    if (!compiled)
      out.errors.push_back(compiled.error().message);
    else
      out.scheduled.push_back(std::move(*compiled));
  }
  return out;
}

}  // namespace burst::daemon
