#include "app/run_job.h"

#include "report/job_facts.h"

namespace burst {

RunJobOutcome run_job(const RunJobDeps& d, const PipelineSpec& spec, PreparedJob job,
                      const RunJobRequest& request) {
  Redactor redact;
  for (const auto& [name, value] : job.secrets) redact.add(name, value);
  JobInput in;
  in.job_id = request.job_id;
  in.spec = spec;
  in.plan = job.plan;
  in.code = std::move(job.code);
  in.secrets = job.secrets;
  in.ssh_public_key = request.ssh_public_key;
  ReportFacts facts = report_facts_from_plan(spec, job.plan);
  if (!spec.workload.items_file.empty()) facts.split_items = static_cast<long>(job.items.size());
  in.facts_json = report_facts_to_json(facts);
  in.reattach = request.reattach;
  in.reattach_why = request.reattach_why;
  in.restart = request.restart;
  in.has_items_file = !spec.workload.items_file.empty();
  in.items = std::move(job.items);
  JobDeps deps{d.store,   d.clock,  d.connector, job.gpu_provider(),
               d.console, d.config, d.interrupts};
  deps.extra_caps = d.extra_caps;
  deps.stop_source = d.stop_source;
  deps.faults = d.faults;
  for (auto& [name, p] : job.providers) deps.providers[name] = p.get();  // fleet fallbacks

  RunJobOutcome out;
  out.result = JobRunner(deps, std::move(in)).run();
  out.finished =
      finish_job(FinishDeps{d.store, d.clock, d.config, d.webhook_http}, request.job_id, redact);
  if (!out.finished.files.markdown.empty())
    d.console.line(out.finished.summary + "report: " + out.finished.files.markdown);
  return out;
}

}  // namespace burst
