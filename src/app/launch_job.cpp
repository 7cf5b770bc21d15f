#include "app/launch_job.h"

#include "burst/ssh_keys.h"
#include "registry.h"

namespace burst {

Result<RunJobOutcome> launch_job(const LaunchDeps& deps, const PipelineSpec& spec, PreparedJob job,
                                 RunJobRequest request) {
  auto key = ensure_keypair(deps.config.ssh_key);
  if (!key.ok()) return with_context(key.error(), "ssh key");
  request.ssh_public_key = *key;
  std::unique_ptr<RemoteConnector> connector = make_connector(job.plan.gpu.provider);
  RunJobDeps run{deps.store, deps.clock, *connector, deps.console, deps.config, deps.interrupts};
  run.extra_caps = deps.extra_caps;
  run.faults = deps.faults;
  if (!deps.stop_source.empty()) run.stop_source = deps.stop_source;
  return run_job(run, spec, std::move(job), request);
}

}  // namespace burst
