#include "job/job_phases.h"

#include <cstdio>

namespace burst {

namespace {

// Phases that only tear down or record: they run whatever the deadline says.
bool runs_after_deadline(Phase p) {
  return p == Phase::kPlan || p == Phase::kDeleteGpu || p == Phase::kDeleteCpu ||
         p == Phase::kDeletePrepareCpu || p == Phase::kReport || p == Phase::kDone ||
         p == Phase::kReattach || p == Phase::kRecover;
}

}  // namespace

JobPhases::JobPhases(JobDeps& deps, JobInput& input, Redactor& redact)
    : ctx_(deps, input, redact),
      provisioner_(ctx_, pods_),
      connection_(ctx_, pods_),
      steps_(ctx_, pods_),
      transfers_(ctx_, pods_) {}

JobPhases::~JobPhases() {
  ctx_.drop_session(pods_.gpu);
  ctx_.drop_session(pods_.cpu);
  ctx_.drop_session(pods_.prep);
}

Outcome JobPhases::execute(Phase phase, std::string* detail) {
  const JobInput& in = ctx_.input();
  // Past budget.deadline no work starts: no pod is created, nothing pulled, no step run.
  if (ctx_.past_deadline() && !runs_after_deadline(phase))
    return ctx_.failed(make_error(ErrorCode::kTimeout, ctx_.watchdog()->deadline_reason()),
                       to_string(phase), detail);
  switch (phase) {
    case Phase::kPlan:
      return plan_note(detail);
    case Phase::kPrepareCpu:
      return connect_new(provisioner_.provision_prepare_pod(detail), pods_.prep, detail);
    case Phase::kPrepare:
      return steps_.prepare(provisioner_.volume_key(), detail);
    case Phase::kDeletePrepareCpu:
      return provisioner_.delete_pod(pods_.prep, detail);
    case Phase::kProvision:
      return provisioner_.provision_gpu(detail);
    case Phase::kWaitSsh:
      return wait_gpu_pod(detail);
    case Phase::kSync:
      return transfers_.sync(provisioner_.volume_key(), detail);
    case Phase::kSetup:
      if (in.spec.setup.empty()) return Outcome::kSkipped;
      return steps_.step("setup", in.spec.setup, pods_.gpu, 0, detail);
    case Phase::kRun:
      if (in.reattach && !pods_.gpu.session) {  // reattach_gpu failed; it said why
        *detail = "not reattached";
        return Outcome::kConnectionLost;
      }
      return steps_.run(detail);
    case Phase::kPull:
      return transfers_.pull(detail);
    case Phase::kDeleteGpu:
      return delete_gpu_pod(detail);
    case Phase::kCpuProvision:
      return connect_new(provisioner_.provision_cpu(detail), pods_.cpu, detail);
    case Phase::kUpload:
      return steps_.step("upload", in.spec.upload->run, pods_.cpu, 0, detail);
    case Phase::kDeleteCpu:
      return provisioner_.delete_pod(pods_.cpu, detail);
    case Phase::kUploadOnGpu:  // hand-off "gpu-pod": same pod, workdir and env as run
      return steps_.step("upload", in.spec.upload->run, pods_.gpu, 0, detail);
    case Phase::kUploadLocal:
      return steps_.upload_local(detail);
    case Phase::kReport:
    case Phase::kDone:
      return Outcome::kOk;
    case Phase::kReattach:  // recorded rows, never executed as a machine phase
    case Phase::kRecover:
    case Phase::kQueued:  // a job row's phase only
    case Phase::kReap:
      *detail = std::string("not a phase the runner executes: ") + to_string(phase);
      return Outcome::kFailed;
  }
  return Outcome::kFailed;
}

Outcome JobPhases::plan_note(std::string* detail) {
  const JobInput& in = ctx_.input();
  const Plan& p = in.plan;
  char usd[32];
  std::snprintf(usd, sizeof usd, "$%.4f", p.estimate.usd);
  *detail = p.gpu.provider + " " + p.gpu.gpu_type + ", estimate " + usd;
  if (p.estimate.workers > 1) *detail += ", " + std::to_string(p.estimate.workers) + " workers";
  if (p.handoff && in.spec.upload) {
    *detail += "; hand-off: " + p.handoff->why;
    ctx_.say("hand-off: " + p.handoff->why);
  }
  if (p.prepare && in.spec.prepare) *detail += "; prepare: " + p.prepare->why;
  return Outcome::kOk;
}

Outcome JobPhases::connect_new(Outcome created, PodHandle& pod, std::string* detail) {
  if (created != Outcome::kOk) return created;
  std::string connected;
  Outcome o =
      connection_.connect(pod, provisioner_.provider_named(pod.record.provider), &connected);
  if (o == Outcome::kOk) *detail += "; " + connected;
  return o;
}

Outcome JobPhases::wait_gpu_pod(std::string* detail) {
  for (int retry = 0;; ++retry) {
    Error start_error;
    const bool may_retry = !ctx_.wide() && retry < Provisioner::kMaxStartRetries;
    Outcome o =
        connection_.connect(pods_.gpu, provisioner_.provider_named(pods_.gpu.record.provider),
                            detail, false, may_retry ? &start_error : nullptr);
    if (o != Outcome::kFailed || start_error.message.empty()) return o;
    Outcome again = provisioner_.replace_unstarted_gpu_pod(start_error, retry + 1, detail);
    if (again != Outcome::kOk) return again;
  }
}

Outcome JobPhases::delete_gpu_pod(std::string* detail) {
  // The run step's limit ends with the pod (a fleet's is the fleet's).
  if (ctx_.watchdog() && !ctx_.wide()) ctx_.watchdog()->clear_runtime_limit();
  return provisioner_.delete_pod(pods_.gpu, detail);
}

Outcome JobPhases::reattach_gpu(std::string* detail) {
  const JobInput& in = ctx_.input();
  auto pods = ctx_.deps().store.pods_of_job(in.job_id);
  if (!pods.ok()) return ctx_.failed(pods.error(), "reattach", detail);
  for (const PodRecord& p : *pods)
    if (p.role == "gpu" && may_exist(p.state)) pods_.gpu.record = p;
  if (pods_.gpu.record.row_id == 0)
    return ctx_.failed(make_error(ErrorCode::kNotFound, "the job has no live GPU pod"), "reattach",
                       detail);
  provisioner_.find_volume_for_reattach();
  std::string connected;
  Outcome o = connection_.connect(pods_.gpu, provisioner_.provider_named(pods_.gpu.record.provider),
                                  &connected, /*reattach=*/true);
  if (o != Outcome::kOk) {
    *detail = "reattach: " + connected;
    ctx_.drop_session(pods_.gpu);
    return Outcome::kConnectionLost;
  }
  if (Status st = check_step_files(*pods_.gpu.session, pods_.gpu.paths, "run"); !st.ok()) {
    // The run phase was opened but its step never started (the daemon stopped in between): start
    // it now. The launch is once-only on the pod (job/remote_steps.h), so a launch that did get
    // through is followed, never repeated.
    if (st.error().code != ErrorCode::kNotFound) {
      ctx_.drop_session(pods_.gpu);
      ctx_.failed(st.error(), "reattach", detail);
      return Outcome::kConnectionLost;
    }
    steps_.set_run_unstarted();
  }
  *detail = in.reattach_why + "; reattached to gpu pod " + pods_.gpu.record.pod_id + " (" +
            connected + ")" +
            (steps_.run_unstarted() ? "; its run step had not started: starting it" : "");
  ctx_.say(*detail);
  return Outcome::kOk;
}

}  // namespace burst

namespace burst {

bool JobPhases::gpu_preempted(std::string* words) {
  const std::string& id = pods_.gpu.record.pod_id;
  if (id.empty() || !pods_.gpu.needs_delete()) return false;
  auto pod = provisioner_.provider().get_pod(id);
  if (!pod.ok() || !pod->preempted) return false;
  if (words)
    *words =
        "pod " + id + " (" +
        (pod->status_note.empty() ? std::string("stopped by the provider") : pod->status_note) +
        ")";
  return true;
}

}  // namespace burst
