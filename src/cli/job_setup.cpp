#include "cli/job_setup.h"

#include <unistd.h>

#include "burst/store.h"
#include "cli/offers.h"
#include "plan/calibration.h"

namespace burst {
namespace {

// Reads each secret from `env`; every required one that is missing is named.
Status collect_secrets(const PipelineSpec& spec, const std::map<std::string, std::string>& env,
                       PreparedJob* job) {
  std::string missing;
  for (size_t i = 0; i < spec.secrets.size(); ++i) {
    const SecretRef& s = spec.secrets[i];
    auto it = env.find(s.name);
    if (it != env.end() && !it->second.empty()) {
      job->secrets[s.name] = it->second;
      if (it->second.size() < 4)
        job->warnings.push_back("secret " + s.name +
                                " is shorter than 4 characters and will not be redacted from "
                                "output");
    } else if (!s.optional) {
      if (!missing.empty()) missing += "\n";
      missing += spec.path + ":" + std::to_string(s.pos.line) + ":" + std::to_string(s.pos.column) +
                 ": secrets[" + std::to_string(i) + "]: " + s.name +
                 " is not set in your environment";
    }
  }
  if (missing.empty()) return Status::Ok();
  return make_error(ErrorCode::kInvalid, missing);
}

// Whether an earlier job of this pipeline succeeded, leaving its weights on the volume.
bool volume_used_before(const Config& config, const PipelineSpec& spec) {
  if (access(config.db_path.c_str(), F_OK) != 0) return false;  // plan creates nothing
  auto store = open_sqlite_store(config.db_path);
  if (!store.ok()) return false;
  auto jobs = (*store)->recent_jobs(200);
  if (!jobs.ok()) return false;
  for (const auto& j : *jobs)
    if (j.pipeline == spec.name && j.state == "succeeded") return true;
  return false;
}

}  // namespace

Result<PreparedJob> prepare_job(const PipelineSpec& spec, const std::string& provider_override,
                                const Config& config, Clock& clock,
                                const std::map<std::string, std::string>& env) {
  PreparedJob job;
  if (Status st = collect_secrets(spec, env, &job); !st.ok()) return st.error();
  auto sources = gather_offers(spec, provider_override, config, clock, /*offline_table=*/false);
  if (!sources.ok())  // kAuth stays kAuth: `burst run` exits 3 naming the provider
    return sources.error().code == ErrorCode::kAuth
               ? sources.error()
               : make_error(ErrorCode::kInvalid, sources.error().message);
  PlanInput& input = sources->input;
  input.warm_volume = volume_used_before(config, spec);
  input.max_workers = 1;  // the runner drives one GPU pod; `burst plan` shows wider splits
  if (!spec.code.dir.empty()) {
    auto scanned = scan_code_dir(spec.code);
    if (!scanned.ok())
      return make_error(ErrorCode::kInvalid, spec.path + ": " + scanned.error().message);
    job.code = std::move(*scanned);
    input.code_bytes = static_cast<long>(job.code.bytes);
  }
  // History calibrates the model's run time for this pipeline per GPU type (plan/calibration.h).
  if (access(config.db_path.c_str(), F_OK) == 0)
    if (auto store = open_sqlite_store(config.db_path); store.ok())
      if (auto runs =
              (*store)->calibration_samples(spec.name, spec.workload.kind, kCalibrationHistory);
          runs.ok())
        input.calibration_history = std::move(*runs);
  auto plan = make_plan(spec, input);
  if (!plan.ok()) return plan.error();
  job.plan = std::move(*plan);
  job.providers = std::move(sources->providers);
  return job;
}

}  // namespace burst
