#include "job/step_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "job/local_step.h"
#include "job/replica_step.h"
#include "job/volume_read.h"
#include "util/private_file.h"
#include "util/shell.h"

namespace burst {
namespace fs = std::filesystem;

StepRunner::StepRunner(JobContext& ctx, JobPods& pods)
    : ctx_(ctx), d_(ctx.deps()), in_(ctx.input()), pods_(pods) {}

Outcome StepRunner::step(const std::string& name, const std::string& script, PodHandle& pod,
                         double max_seconds, std::string* detail) {
  TimePoint start = d_.clock.now();
  const bool resumed = in_.reattach && name == "run";
  const bool reattach = resumed && !run_unstarted_;  // follow the step a previous burst started
  StepOffsets from;
  if (resumed)  // max_runtime counts from the run phase's start, before burstd restarted
    if (auto rows = d_.store.phases(in_.job_id); rows.ok())
      for (const auto& r : *rows)
        if (r.phase == Phase::kRun) start = from_unix_ms(r.started_ms);
  if (reattach) {
    from = load_offsets(name);
    ctx_.say("continuing the run step's output from byte " + std::to_string(from.out) +
             " (stdout) and " + std::to_string(from.err) + " (stderr)");
  }
  // A fleet's runtime limit runs from its first worker's run step (job/worker_fleet.h).
  if (name == "run" && ctx_.watchdog() && !ctx_.wide())
    ctx_.watchdog()->set_runtime_limit(start, max_seconds);
  if (name == "run" && ctx_.watchdog() && ctx_.wide())
    ctx_.watchdog()->start_runtime_limit(start, max_seconds);
  // Fresh artefacts only (issue 21): the pod's clock as this job's first step starts; the pull
  // takes only files modified since (sync/artefact_pull.h). Unknown (0): no filter.
  if (!reattach && pod.kind == PodKind::kGpu && pods_.artefacts_since == 0 &&
      !in_.spec.artefacts.empty())
    if (auto now = pod.session->run_capture("date +%s"); now.ok())
      pods_.artefacts_since = std::strtoll(now->c_str(), nullptr, 10);
  bool over_time = false;
  std::string over_budget;
  auto stop = [&] {
    ctx_.moving();
    over_time = max_seconds > 0 && seconds_since(d_.clock, start) > max_seconds;
    if (over_budget.empty()) over_budget = ctx_.budget_exceeded(pods_.records());
    return over_time || !over_budget.empty() || ctx_.interrupted();
  };
  const bool keep_offsets = name == "run";
  auto on_line = [&](bool e, const std::string& l) {
    ctx_.moving();
    ctx_.remote_line(e, l);
    ctx_.fault("mid-", name);
  };
  auto on_offsets = [&](const StepOffsets& o) {
    if (keep_offsets) save_offsets(name, o);
  };
  if (!reattach) ctx_.fault("before-", name);  // the phase is open, the step not yet launched
  auto status =
      reattach ? follow_step(*pod.session, pod.paths, name, from, on_line, on_offsets, stop)
               : run_step(*pod.session, pod.paths, name, script, pods_.workdir, on_line, on_offsets,
                          stop, StepTimeouts{}, pod.container ? &*pod.container : nullptr);
  if (keep_offsets) {  // only a reattach reads them, and this follower saw the step to its end
    std::error_code ec;
    fs::remove(offsets_path(name), ec);
  }
  if (!status.ok() && status.error().code == ErrorCode::kInterrupted) {
    // Over SSH only while the session answers: an aborted one refuses at once, and one that hangs
    // is aborted by the watchdog after its grace. The pod's deletion stops the step regardless.
    if (!(ctx_.watchdog() && ctx_.watchdog()->aborted())) {
      ctx_.say("stopping the remote " + name + " command");
      ctx_.moving();
      stop_step(*pod.session, pod.paths, name, pod.container ? &*pod.container : nullptr);
    }
    ctx_.set_stopped_by_limit(over_time || !over_budget.empty() || ctx_.past_deadline());
    if (over_time) {
      return ctx_.failed(
          make_error(ErrorCode::kTimeout, "exceeded budget.max_runtime (" +
                                              std::to_string(static_cast<long>(max_seconds)) +
                                              " s); stopped"),
          name, detail, JobStop::kMaxRuntime);
    }
    if (!over_budget.empty())
      return ctx_.failed(make_error(ErrorCode::kRemoteFailed, over_budget), name, detail,
                         JobStop::kMoneyCap);
    return ctx_.failed(status.error(), name, detail);
  }
  if (!status.ok() && status.error().code != ErrorCode::kRemoteFailed) {
    Error e = status.error();
    e.message = "lost the SSH connection while the command ran (" + e.message + ")";
    return ctx_.failed(e, name, detail);
  }
  if (!status.ok()) return ctx_.failed(status.error(), name, detail);
  if (*status != 0) {
    return ctx_.failed(
        make_error(ErrorCode::kRemoteFailed, "exited with status " + std::to_string(*status)), name,
        detail);
  }
  *detail = reattach ? "exit 0 (reattached)" : "exit 0";
  return Outcome::kOk;
}

std::string StepRunner::offsets_path(const std::string& step) const {
  const std::string worker = ctx_.wide() ? ".w" + std::to_string(in_.worker.index) : "";
  return d_.config.logs_dir + "/" + in_.job_id + worker + "." + step + ".offsets";
}

StepOffsets StepRunner::load_offsets(const std::string& step) const {
  StepOffsets o;
  std::ifstream f(offsets_path(step));
  f >> o.out >> o.err;
  return f ? o : StepOffsets{};
}

void StepRunner::save_offsets(const std::string& step, const StepOffsets& o) const {
  // Temp file and rename: a burstd killed mid-write leaves the previous offsets, never half.
  const std::string path = offsets_path(step);
  (void)write_private_file(path + ".tmp",
                           std::to_string(o.out) + " " + std::to_string(o.err) + "\n");
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
}

Outcome StepRunner::run(std::string* detail) {
  const double max_s = in_.spec.budget.max_runtime_seconds.value_or(0);
  const PodLayout& l = in_.plan.layout;
  // A layout priced for another count is never run (Plan::layout follows the offer rented).
  if (l.replicas <= 1 || l.gpus != rented_gpus(in_))
    return step("run", in_.spec.run, pods_.gpu, max_s, detail);
  // Reattached: the same wrapper, its files untouched (a running copy may be reading its
  // script). A launched step is followed; one the previous burstd never launched starts with the
  // files it wrote before the launch.
  if (in_.reattach)
    return step("run", replica_wrapper(l, pods_.gpu.paths.pod_dir, in_.has_items_file), pods_.gpu,
                max_s, detail);
  auto wrapper = prepare_replicas(
      *pods_.gpu.session, pods_.gpu.paths, l, in_.spec.run,
      in_.has_items_file ? (pods_.items_left ? &*pods_.items_left : &in_.items) : nullptr);
  if (!wrapper.ok()) return ctx_.failed(wrapper.error(), "run", detail);
  ctx_.say("run: " + pod_layout_text(l) + " on pod " + pods_.gpu.record.pod_id +
           (in_.has_items_file ? ", each its share of the items" : "") +
           " (lines prefixed [r<i>])");
  const Outcome o = step("run", *wrapper, pods_.gpu, max_s, detail);
  *detail += (detail->empty() ? "" : "; ") + pod_layout_text(l);
  // Each replica's facts, typed (job/replica_stats.h), while the pod still answers.
  if ((o == Outcome::kOk || o == Outcome::kFailed) && pods_.gpu.session) {
    ReplicaRecord base;
    base.job_id = in_.job_id;
    base.worker = in_.worker.index;
    base.pod_id = pods_.gpu.record.pod_id;
    std::string skipped;
    for (const ReplicaRecord& r : read_replica_records(
             *pods_.gpu.session, pods_.gpu.paths, l, base,
             in_.has_items_file ? (pods_.items_left ? &*pods_.items_left : &in_.items) : nullptr,
             &skipped))
      (void)d_.store.add_replica(r);
    if (!skipped.empty()) ctx_.say("no facts from " + skipped);
  }
  return o;
}

Outcome StepRunner::prepare(const std::string& volume_key, std::string* detail) {
  const PrepareSpec& spec = *in_.spec.prepare;
  const bool on_cpu = in_.plan.prepare && in_.plan.prepare->where == PrepareWhere::kCpuPod;
  PodHandle& pod = on_cpu ? pods_.prep : pods_.gpu;
  const std::string where = on_cpu ? "CPU pod " : "GPU pod ";
  if (!pod.session)
    return ctx_.failed(make_error(ErrorCode::kConnection, "no SSH session to the pod"), "prepare",
                       detail);
  // Workers on one volume prepare it one at a time (FleetProvision::prepare_by_volume).
  std::shared_ptr<std::mutex> volume_mu;
  std::unique_lock<std::mutex> one_prepare;
  if (ctx_.fleet() && !volume_key.empty()) {
    volume_mu = ctx_.fleet()->volume_lock(ctx_.fleet()->prepare_by_volume, volume_key);
    one_prepare = std::unique_lock<std::mutex>(*volume_mu);
  }
  // Every creates: path present on the volume: the step's work is done, it does not run again.
  auto all_present = [&]() -> Result<bool> {
    std::string test = "cd " + shell_quote(pod.paths.volume);
    for (const std::string& p : spec.creates) test += " && test -e " + shell_quote(p);
    auto out = pod.session->run_capture("if " + test + "; then echo yes; else echo no; fi");
    if (!out.ok()) return out.error();
    return out->rfind("yes", 0) == 0;
  };
  std::string names;
  for (const std::string& p : spec.creates) names += (names.empty() ? "" : ", ") + p;
  if (!spec.creates.empty()) {
    auto present = all_present();
    if (!present.ok()) return ctx_.failed(present.error(), "prepare", detail);
    if (*present) {
      *detail = "skipped: every creates: path exists on the volume (" + names + "), checked on " +
                where + pod.record.pod_id;
      ctx_.say("prepare " + *detail);
      // The warm volume's read rate (job/volume_read.h); no answer is no sample, never a failure.
      auto read = measure_volume_read(*pod.session, pod.paths.volume, spec.creates, d_.clock,
                                      [&] { return ctx_.interrupted(); });
      if (read.ok()) {
        (void)d_.store.add_transfer(
            {in_.job_id, kVolumeReadDirection, 1, read->bytes, volume_read_millis(*read)});
        *detail += "; " + volume_read_summary(*read);
      }
      ctx_.say(read.ok() ? volume_read_summary(*read) : read.error().message);
      return Outcome::kSkipped;
    }
  }
  ctx_.say("prepare on " + where + pod.record.pod_id);
  Outcome o = step("prepare", spec.run, pod, 0, detail);
  if (o != Outcome::kOk) return o;
  if (!spec.creates.empty()) {
    auto present = all_present();
    if (!present.ok()) return ctx_.failed(present.error(), "prepare", detail);
    if (!*present)
      return ctx_.failed(
          make_error(ErrorCode::kRemoteFailed,
                     "exited 0 but did not create every creates: path (" + names + ")"),
          "prepare", detail);
  }
  *detail = "exit 0 on " + where + pod.record.pod_id;
  return Outcome::kOk;
}

Outcome StepRunner::upload_local(std::string* detail) {
  // Hand-off "local": the GPU pod is gone; the pulled artefacts are the upload's inputs.
  const std::string base = d_.config.state_dir + "/handoff/" + in_.job_id;
  const std::string view = base + "/work";
  Status st = make_local_view(view, in_.spec.code, in_.spec.artefacts);
  if (!st.ok()) return ctx_.failed(st.error(), "upload (this machine)", detail);
  std::error_code ec;
  fs::create_directories(base + "/volume", ec);
  std::map<std::string, std::string> env = in_.spec.env;
  env.insert(in_.secrets.begin(), in_.secrets.end());
  env["BURST_VOLUME"] = base + "/volume";  // the cloud volume is not reachable from here
  env["BURST_JOB_ID"] = in_.job_id;
  env["BURST_PIPELINE"] = in_.spec.name;
  env["BURST_WORKDIR"] = view;
  env["BURST_HANDOFF"] = "local";  // not a provider name: the hand-off
  ctx_.say("upload on this machine in " + view);
  auto status = run_local_step(
      in_.spec.upload->run, base + "/upload.sh", view, env,
      [&](bool e, const std::string& l) {
        ctx_.remote_line(e, l);
        ctx_.fault("mid-upload");
      },
      [&] { return ctx_.interrupted(); });
  if (!status.ok()) return ctx_.failed(status.error(), "upload (this machine)", detail);
  if (*status != 0)
    return ctx_.failed(
        make_error(ErrorCode::kRemoteFailed, "exited with status " + std::to_string(*status)),
        "upload (this machine)", detail);
  *detail = "exit 0, on this machine";
  return Outcome::kOk;
}

}  // namespace burst
