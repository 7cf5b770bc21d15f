#include "app/prepare_job.h"

#include "app/items_file.h"
#include "app/offers.h"
#include "app/plan_with_history.h"
#include "registry.h"

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

}  // namespace

Result<PreparedJob> prepare_job(const PipelineSpec& spec, const std::string& provider_override,
                                const Config& config, Clock& clock,
                                const std::map<std::string, std::string>& env, bool offline_table,
                                Store* store) {
  PreparedJob job;
  if (Status st = collect_secrets(spec, env, &job); !st.ok()) return st.error();
  auto sources = gather_offers(spec, provider_override, config, clock, offline_table);
  if (!sources.ok())  // kAuth stays kAuth: `burst run` exits 3 naming the provider
    return sources.error().code == ErrorCode::kAuth
               ? sources.error()
               : make_error(ErrorCode::kInvalid, sources.error().message);
  PlanInput& input = sources->input;
  if (offline_table && !sources->table_note.empty()) job.warnings.push_back(sources->table_note);
  auto items = read_items_file(spec);
  if (!items.ok()) return items.error();
  job.items = std::move(*items);
  if (!spec.workload.items_file.empty() && spec.workload.items &&
      *spec.workload.items != static_cast<long>(job.items.size()))
    job.warnings.push_back("workload.items is " + std::to_string(*spec.workload.items) + " but " +
                           spec.workload.items_file + " holds " + std::to_string(job.items.size()) +
                           " items; the plan priced workload.items");
  if (spec.code.synced()) {
    auto scanned = scan_code_dir(spec.code);
    if (!scanned.ok())
      return make_error(ErrorCode::kInvalid, spec.path + ": " + scanned.error().message);
    job.code = std::move(*scanned);
    input.code_bytes = static_cast<long>(job.code.bytes);
  }
  // History (a warm volume, the calibrated run time) as for `burst plan`: app/plan_with_history.h.
  auto plan = plan_with_history(spec, &input, config, store);
  if (!plan.ok()) return plan.error();
  // A secret's value is known only here (the spec's own env was checked at validate and plan):
  // a provider the plan uses that cannot carry it is refused now, before anything is created.
  std::vector<const Offer*> used{&plan->gpu};
  if (plan->cpu) used.push_back(&*plan->cpu);
  for (const FleetFallback& f : plan->fallbacks) used.push_back(&f.offer);
  for (const Offer* o : used)
    if (const ProviderTraits* t = find_provider_traits(o->provider))
      if (std::string why = env_refusal(*t, job.secrets); !why.empty())
        return make_error(ErrorCode::kInvalid,
                          spec.path + ": secrets: " + why + " (use another provider)");
  job.plan = std::move(*plan);
  job.providers = std::move(sources->providers);
  return job;
}

}  // namespace burst
