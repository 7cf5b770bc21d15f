#include "job/job_phases.h"

#include <cstdio>
#include <filesystem>

#include "job/pod_lifecycle.h"
#include "sync/artefact_pull.h"
#include "util/retry.h"

namespace burst {
namespace fs = std::filesystem;

namespace {

std::string replace_volume(std::string path, const std::string& volume) {
  const std::string var = "$BURST_VOLUME";
  if (path.rfind(var, 0) == 0) path = volume + path.substr(var.size());
  return path;
}

double seconds_since(Clock& clock, TimePoint t) {
  return std::chrono::duration<double>(clock.now() - t).count();
}

}  // namespace

JobPhases::JobPhases(JobDeps& deps, JobInput& input, Redactor& redact)
    : d_(deps), in_(input), redact_(redact) {
  std::error_code ec;
  fs::create_directories(d_.config.logs_dir, ec);
  log_.open(d_.config.logs_dir + "/" + in_.job_id + ".log", std::ios::app);
}

void JobPhases::say(const std::string& text) {
  std::string clean = redact_(text);
  d_.console.line(clean);
  log_ << format_utc(d_.clock.now()) << " " << clean << "\n" << std::flush;
}

void JobPhases::fail(const std::string& why) {
  if (error_.empty()) error_ = redact_(why);
}

Outcome JobPhases::failed(const Error& e, const std::string& what, std::string* detail) {
  *detail = redact_(what + ": " + e.message);
  fail(*detail);
  say("error: " + *detail);
  if (e.code == ErrorCode::kInterrupted) return Outcome::kInterrupted;
  if (e.code == ErrorCode::kConnection) return Outcome::kConnectionLost;
  return Outcome::kFailed;
}

void JobPhases::remote_line(bool is_err, const std::string& line) {
  std::string clean = redact_(line);
  if (is_err)
    d_.console.remote_err(clean);
  else
    d_.console.remote_out(clean);
  log_ << format_utc(d_.clock.now()) << (is_err ? " ! " : " | ") << clean << "\n" << std::flush;
}

Outcome JobPhases::execute(Phase phase, std::string* detail) {
  switch (phase) {
    case Phase::kPlan: {
      const Plan& p = in_.plan;
      char usd[32];
      std::snprintf(usd, sizeof usd, "$%.4f", p.estimate.usd);
      *detail = p.gpu.provider + " " + p.gpu.gpu_type + ", estimate " + usd;
      return Outcome::kOk;
    }
    case Phase::kProvision:
      return provision(detail);
    case Phase::kWaitSsh:
      return connect_pod(gpu_, detail);
    case Phase::kSync:
      return sync(detail);
    case Phase::kSetup:
      if (in_.spec.setup.empty()) return Outcome::kSkipped;
      return step("setup", in_.spec.setup, gpu_, 0, detail);
    case Phase::kRun:
      return step("run", in_.spec.run, gpu_, in_.spec.budget.max_runtime_seconds.value_or(0),
                  detail);
    case Phase::kPull:
      return pull(detail);
    case Phase::kDeleteGpu:
      return delete_pod(gpu_, detail);
    case Phase::kCpuProvision:
      return cpu_provision(detail);
    case Phase::kUpload:
      return step("upload", in_.spec.upload->run, cpu_, 0, detail);
    case Phase::kDeleteCpu:
      return delete_pod(cpu_, detail);
    case Phase::kReport:
    case Phase::kDone:
      return Outcome::kOk;
  }
  return Outcome::kFailed;
}

Outcome JobPhases::provision(std::string* detail) {
  const VolumeSpec& v = in_.spec.volume;
  auto volume = retry<Result<Volume>>(d_.clock, RetryPolicy{}, [&] {
    return d_.provider.ensure_volume(v.name, v.size_gb, in_.plan.gpu.region);
  });
  if (!volume.ok()) return failed(volume.error(), "volume " + v.name, detail);
  gpu_.record.gpu_type = in_.plan.gpu.gpu_type;
  return create_pod(gpu_, true, detail);
}

Outcome JobPhases::create_pod(PodHandle& pod, bool gpu, std::string* detail) {
  const Offer& offer = gpu ? in_.plan.gpu : *in_.plan.cpu;
  PodRequest req;
  req.name = pod_name(in_.job_id, gpu ? "gpu" : "cpu");
  req.job_id = in_.job_id;
  req.gpu = gpu;
  req.gpu_type = offer.gpu_type;
  req.gpu_count = gpu ? in_.spec.resources.gpu_count : 0;
  req.spot = gpu && in_.spec.resources.spot && offer.spot_usd_per_hour.has_value();
  req.image = gpu || in_.spec.upload->image.empty() ? in_.spec.image : in_.spec.upload->image;
  req.volume_id = in_.spec.volume.name;
  req.mount_path = in_.spec.volume.mount;
  req.ssh_public_key = in_.ssh_public_key;
  pod.record.job_id = in_.job_id;
  pod.record.role = gpu ? "gpu" : "cpu";
  pod.record.gpu_type = offer.gpu_type;
  pod.record.gpu_count = req.gpu_count;
  pod.record.usd_per_hour = req.spot ? *offer.spot_usd_per_hour : offer.usd_per_hour;
  pod.record.price_source = offer.price_source;
  auto created = create_recorded_pod(d_.store, d_.provider, d_.clock, req, &pod.record);
  if (!created.ok()) return failed(created.error(), "create " + pod.record.role + " pod", detail);
  *detail = d_.provider.name() + " pod " + created->id;
  say(pod.record.role + " pod " + created->id + " created (" + offer.gpu_type + ")");
  return interrupted() ? Outcome::kInterrupted : Outcome::kOk;
}

Outcome JobPhases::connect_pod(PodHandle& pod, std::string* detail) {
  const TimePoint start = d_.clock.now();
  const TimePoint deadline =
      start + std::chrono::milliseconds(static_cast<int64_t>(d_.config.ssh_wait_seconds * 1000));
  auto stop = [&] {
    d_.console.progress("waiting for pod " + pod.record.pod_id + " " +
                        std::to_string(static_cast<int>(seconds_since(d_.clock, start))) + "s");
    return interrupted();
  };
  auto running = wait_until_running(d_.provider, d_.clock, pod.record.pod_id, deadline, stop);
  if (!running.ok()) return failed(running.error(), "wait for pod", detail);
  pod.target = {running->ssh.host, running->ssh.port, running->ssh.user, d_.config.ssh_key, ""};
  auto session = connect_with_retry(d_.connector, pod.target, d_.clock, deadline, stop);
  if (!session.ok()) return failed(session.error(), "ssh", detail);
  pod.session = std::move(*session);
  pod.record.host_key = pod.target.pinned_host_key;
  (void)d_.store.update_pod(pod.record);
  auto paths = probe_pod(*pod.session, in_.spec.volume.mount);
  if (!paths.ok()) return failed(paths.error(), "ssh", detail);
  pod.paths = *paths;
  workdir_ = replace_volume(in_.spec.code.remote_dir, pod.paths.volume);
  std::map<std::string, std::string> env = in_.spec.env;
  env.insert(in_.secrets.begin(), in_.secrets.end());
  env["BURST_VOLUME"] = pod.paths.volume;
  env["BURST_JOB_ID"] = in_.job_id;
  env["BURST_PIPELINE"] = in_.spec.name;
  env["BURST_WORKDIR"] = workdir_;
  Status st = pod.session->mkdirs(workdir_, 0755);
  if (st.ok()) st = install_env(*pod.session, pod.paths, env);
  if (!st.ok()) return failed(st.error(), "prepare pod", detail);
  *detail = pod.target.user + "@" + pod.target.host + ":" + std::to_string(pod.target.port) +
            ", host key " + pod.target.pinned_host_key;
  say("ssh " + pod.target.host + ":" + std::to_string(pod.target.port) + " ready after " +
      std::to_string(static_cast<int>(seconds_since(d_.clock, start))) + " s");
  return interrupted() ? Outcome::kInterrupted : Outcome::kOk;
}

Outcome JobPhases::sync(std::string* detail) {
  if (in_.spec.code.dir.empty()) return Outcome::kSkipped;
  for (const auto& w : in_.code.warnings) say("warning: " + w);
  const TimePoint start = d_.clock.now();
  auto stats = sync_code(*gpu_.session, in_.code, workdir_, [&](const SyncStats& s) {
    d_.console.progress("sync " + std::to_string(s.files_sent) + " files, " +
                        std::to_string(s.bytes_sent / 1024) + " KiB");
  });
  if (!stats.ok()) return failed(stats.error(), "sync", detail);
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(d_.clock.now() - start).count();
  (void)d_.store.add_transfer({in_.job_id, "sync", stats->files_sent, stats->bytes_sent, ms});
  *detail = std::to_string(stats->files_sent) + " of " + std::to_string(stats->files_total) +
            " files changed, " + std::to_string(stats->bytes_sent) + " bytes sent";
  say("synced " + *detail + " to " + workdir_);
  return interrupted() ? Outcome::kInterrupted : Outcome::kOk;
}

Outcome JobPhases::step(const std::string& name, const std::string& script, PodHandle& pod,
                        double max_seconds, std::string* detail) {
  const TimePoint start = d_.clock.now();
  bool over_time = false;
  auto stop = [&] {
    over_time = max_seconds > 0 && seconds_since(d_.clock, start) > max_seconds;
    return over_time || interrupted();
  };
  auto status = run_step(
      *pod.session, pod.paths, name, script, workdir_,
      [&](bool e, const std::string& l) { remote_line(e, l); }, stop);
  if (!status.ok() && status.error().code == ErrorCode::kInterrupted) {
    say("stopping the remote " + name + " command");
    stop_step(*pod.session, pod.paths, name);
    if (over_time) {
      return failed(make_error(ErrorCode::kTimeout,
                               "exceeded budget.max_runtime (" +
                                   std::to_string(static_cast<long>(max_seconds)) + " s); stopped"),
                    name, detail);
    }
    return failed(status.error(), name, detail);
  }
  if (!status.ok()) {
    Error e = status.error();
    e.message = "lost the SSH connection while the command ran (" + e.message + ")";
    return failed(e, name, detail);
  }
  if (*status != 0) {
    return failed(
        make_error(ErrorCode::kRemoteFailed, "exited with status " + std::to_string(*status)), name,
        detail);
  }
  *detail = "exit 0";
  return Outcome::kOk;
}

Outcome JobPhases::pull(std::string* detail) {
  if (d_.interrupts() >= 2) return Outcome::kSkipped;
  if (in_.spec.artefacts.empty()) return Outcome::kSkipped;
  const TimePoint start = d_.clock.now();
  auto result = pull_artefacts(
      *gpu_.session, in_.spec.artefacts, workdir_, gpu_.paths.volume, [&](const PullResult& r) {
        d_.console.progress("pull " + std::to_string(r.files) + " files, " +
                            std::to_string(r.bytes / (1024 * 1024)) + " MiB, " +
                            std::to_string(static_cast<int>(seconds_since(d_.clock, start))) + "s");
      });
  if (!result.ok()) return failed(result.error(), "pull", detail);
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(d_.clock.now() - start).count();
  (void)d_.store.add_transfer({in_.job_id, "pull", result->files, result->bytes, ms});
  for (const auto& p : result->local_paths) say("pulled " + p);
  *detail = std::to_string(result->files) + " files, " + std::to_string(result->bytes) + " bytes";
  if (!result->unmatched.empty() && error_.empty()) {
    return failed(
        make_error(ErrorCode::kNotFound, "no file on the pod matched " + result->unmatched.front()),
        "pull", detail);
  }
  return Outcome::kOk;
}

Outcome JobPhases::delete_pod(PodHandle& pod, std::string* detail) {
  if (!pod.needs_delete()) return Outcome::kSkipped;
  pod.session.reset();  // close SSH before the sshd goes away
  say("deleting " + pod.record.role + " pod " + pod.record.pod_id);
  Status st = delete_and_verify(d_.store, d_.provider, d_.clock, &pod.record);
  if (!st.ok()) {
    return failed(st.error(), "pod " + pod.record.name + " may still be running; run `burst reap`",
                  detail);
  }
  *detail = "deletion confirmed";
  say(pod.record.role + " pod " + pod.record.pod_id + " deleted (confirmed)");
  return Outcome::kOk;
}

Outcome JobPhases::cpu_provision(std::string* detail) {
  Outcome o = create_pod(cpu_, false, detail);
  if (o != Outcome::kOk) return o;
  std::string d2;
  o = connect_pod(cpu_, &d2);
  if (o == Outcome::kOk) *detail += "; " + d2;
  return o;
}

}  // namespace burst
