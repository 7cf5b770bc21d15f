#include "job/pod_connection.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "job/container_checks.h"
#include "job/pod_lifecycle.h"
#include "job/spot_items.h"
#include "util/shell.h"
#include "util/ssh_hosts_file.h"

namespace burst {

PodConnection::PodConnection(JobContext& ctx, JobPods& pods)
    : ctx_(ctx), d_(ctx.deps()), in_(ctx.input()), pods_(pods) {}

Outcome PodConnection::connect(PodHandle& pod, Provider& provider, std::string* detail,
                               bool reattach, Error* start_error) {
  const MonoTime start = d_.clock.mono_now();
  // config.yaml's ssh_wait_seconds, else the provider's own wait (ProviderTraits).
  const double wait_s = d_.config.ssh_wait_seconds > 0 ? d_.config.ssh_wait_seconds
                                                       : traits_of(in_.plan.gpu).provision_wait_s;
  const MonoTime deadline = start + std::chrono::milliseconds(static_cast<int64_t>(wait_s * 1000));
  std::string status;         // the provider's words on the booting pod, shown while waiting
  bool start_failed = false;  // Pod::start_failed: the provider says it will never run
  // The money caps govern this wait too (issue 35: a reattach looping on SSH for 600 s cost six
  // times its max_usd): the pod bills while burst waits for it.
  std::string over_budget;
  auto stop = [&] {
    d_.console.progress("waiting for pod " + pod.record.pod_id + " " +
                        std::to_string(static_cast<int>(seconds_since(d_.clock, start))) + "s" +
                        (status.empty() ? "" : " (" + pod.record.provider + ": " + status + ")"));
    ctx_.moving();
    if (over_budget.empty()) over_budget = ctx_.budget_exceeded(pods_.records());
    return ctx_.interrupted() || !over_budget.empty();
  };
  auto cause = [&](const Error& e) {
    if (e.code != ErrorCode::kInterrupted || over_budget.empty() || ctx_.interrupted()) return e;
    ctx_.set_stopped_by_limit();  // a limit's stop: a fleet never retries it
    return make_error(ErrorCode::kRemoteFailed, over_budget);
  };
  auto limit = [&](const Error& e) {  // cause's typed fact: a money cap's stop, or none
    return e.code == ErrorCode::kInterrupted && !over_budget.empty() && !ctx_.interrupted()
               ? JobStop::kMoneyCap
               : JobStop::kNone;
  };
  auto running = wait_until_running(provider, d_.clock, pod.record.pod_id, deadline, stop,
                                    d_.faults, [&](const Pod& p) {
                                      status = p.status_note;
                                      start_failed = p.start_failed;
                                    });
  if (!running.ok() && start_failed && start_error) {
    *start_error = running.error();
    return Outcome::kFailed;
  }
  if (!running.ok())
    return ctx_.failed(cause(running.error()), "wait for pod", detail, limit(running.error()));
  if (!reattach) {  // a reattached pod was checked when it was created
    if (Status listed = check_pod_listed(provider, d_.clock, pod.record.pod_id); !listed.ok())
      return ctx_.failed(listed.error(), "check pod list", detail);
  }
  // On reattach the host key pinned at first contact must match: a different key is refused.
  pod.target = {running->ssh.host, running->ssh.port, running->ssh.user,
                running->ssh.identity_file.empty() ? d_.config.ssh_key : running->ssh.identity_file,
                reattach ? pod.record.host_key : ""};
  // A transfer or command with no byte from the pod for this long fails (config.yaml).
  pod.target.no_progress_timeout_s = static_cast<int>(std::max(1.0, d_.config.no_progress_seconds));
  // While SSH does not answer, ask the provider now and then whether the pod is still there: a
  // spot pod taken back (or any pod stopped) between "running" and the first login would
  // otherwise be retried until the provider's whole wait ran out (E2ESpot's preemption storm hung
  // there under load). Every kSshPodCheck, not every attempt: one GET, not one a second.
  constexpr auto kSshPodCheck = std::chrono::seconds(5);
  MonoTime next_check = d_.clock.mono_now() + kSshPodCheck;
  std::string lost;  // the pod's end, as the provider reports it
  auto stop_or_lost = [&] {
    if (stop()) return true;
    if (d_.clock.mono_now() < next_check) return false;
    next_check = d_.clock.mono_now() + kSshPodCheck;
    auto now = provider.get_pod(pod.record.pod_id);
    if (!now.ok() ||
        (now->state != PodState::kGone && now->state != PodState::kStopping && !now->preempted))
      return false;
    lost = "pod " + pod.record.pod_id + " stopped before SSH answered (" +
           (now->preempted ? "taken back by the provider" : "gone or stopping") +
           (now->status_note.empty() ? "" : "; " + provider.name() + " says: " + now->status_note) +
           ")";
    return true;
  };
  auto session = connect_with_retry(d_.connector, pod.target, d_.clock, deadline, stop_or_lost,
                                    /*auth_is_final=*/reattach);
  if (!session.ok() && !lost.empty() && !ctx_.interrupted() && over_budget.empty())
    session = make_error(ErrorCode::kUnavailable, lost);
  if (!session.ok() && reattach && session.error().code == ErrorCode::kAuth)
    session = with_context(session.error(), "reattach: this burst's SSH key (" + d_.config.ssh_key +
                                                ") is not one the pod accepts; a team's daemons "
                                                "need the team's one key (docs/daemon.md)");
  if (!session.ok()) {
    const char* what = "ssh";  // not a provider name
    return ctx_.failed(cause(session.error()), what, detail, limit(session.error()));
  }
  ctx_.adopt_session(pod, std::move(*session));
  pod.record.host_key = pod.target.pinned_host_key;
  (void)d_.store.update_pod(pod.record);
  publish_ssh_host(pod);
  // Some providers mount the volume at their own fixed path (Lambda): that is $BURST_VOLUME.
  // Your own hosts name the job's dir under their lock (Pod::work_dir).
  auto paths = probe_pod(
      *pod.session, running->volume_path.empty() ? in_.spec.volume.mount : running->volume_path,
      running->work_dir);
  if (!paths.ok()) return ctx_.failed(paths.error(), "ssh", detail);  // not a provider name
  pod.paths = *paths;
  pods_.workdir = expand_volume(in_.spec.code.remote_dir, pod.paths.volume);
  if (traits_of(in_.plan.gpu).steps_in_container) {
    StepContainer c;
    const bool cpu = pod.kind != PodKind::kGpu;
    c.image = pod.kind == PodKind::kCpu && in_.spec.upload && !in_.spec.upload->image.empty()
                  ? in_.spec.upload->image
              : pod.kind == PodKind::kPrep && in_.spec.prepare && !in_.spec.prepare->image.empty()
                  ? in_.spec.prepare->image
                  : in_.spec.image;
    c.prefix = container_prefix(in_.job_id);
    c.gpus = !cpu;
    c.mounts = {pods_.workdir, pod.paths.volume, pod.paths.pod_dir};
    c.workdir = pods_.workdir;
    c.env_file = pod.paths.pod_dir + "/env.docker";
    pod.container = c;
  }
  if (reattach) {  // the env file, the image and the workdir are there from the first connection
    *detail = pod.target.user + "@" + pod.target.host + ":" + std::to_string(pod.target.port);
    return Outcome::kOk;
  }
  std::map<std::string, std::string> env = in_.spec.env;
  env.insert(in_.secrets.begin(), in_.secrets.end());
  env["BURST_VOLUME"] = pod.paths.volume;
  env["BURST_JOB_ID"] = in_.job_id;
  env["BURST_PIPELINE"] = in_.spec.name;
  env["BURST_WORKDIR"] = pods_.workdir;
  env["BURST_WORKER_INDEX"] = std::to_string(in_.worker.index);
  env["BURST_WORKER_COUNT"] = std::to_string(in_.worker.count);
  env["BURST_REPLICA_INDEX"] = "0";  // job/replica_step.h sets its own per replica
  env["BURST_REPLICA_COUNT"] = "1";
  const std::string items_path = pod.paths.pod_dir + "/items.txt";
  if (in_.has_items_file) env["BURST_ITEMS_FILE"] = items_path;
  // The worker's done records (job/spot_items.h): on the spec's volume, so they outlive a pod
  // the provider takes back.
  const bool gpu_items = in_.has_items_file && pod.kind == PodKind::kGpu;
  const std::string done_path = done_file_path(in_.spec.volume.name.empty() ? "" : pod.paths.volume,
                                               pod.paths.pod_dir, in_.job_id, in_.worker.index);
  if (gpu_items) env["BURST_DONE_FILE"] = done_path;
  Status st = pod.session->mkdirs(pods_.workdir, 0755);
  if (st.ok() && gpu_items)
    st = pod.session->mkdirs(done_path.substr(0, done_path.rfind('/')), 0755);
  // A pod taking over a preempted one pulls what that one made too (its freshness cut).
  if (pod.kind == PodKind::kGpu && in_.worker.resume && in_.worker.artefacts_since > 0)
    pods_.artefacts_since = in_.worker.artefacts_since;
  if (st.ok() && gpu_items && in_.worker.resume) {
    // After a preemption: only the items the done records do not show finished.
    auto done = pod.session->run_capture("head -c " + std::to_string(kDoneRecordsMaxBytes) +
                                         " -- " + shell_quote(done_path) + " 2>/dev/null; true");
    long kept = 0;
    pods_.items_left = items_not_done(in_.items, done.ok() ? *done : "", &kept);
    pods_.items_kept = kept;
    ctx_.say(std::to_string(kept) + " of this worker's " + std::to_string(in_.items.size()) +
             " items finished before the preemption (done records" +
             (done.ok() ? "" : " unreadable: " + done.error().message) + "); " +
             std::to_string(pods_.items_left->size()) + " run on this pod");
  }
  if (st.ok() && in_.has_items_file) {  // this worker's shard, one item a line
    std::string text;
    for (const std::string& item : pods_.items_left ? *pods_.items_left : in_.items)
      text += item + "\n";
    st = pod.session->write_file(items_path, text, 0644);
  }
  if (st.ok() && pod.container) {
    auto text = docker_env_file(env);  // over SFTP, 0600: no value on a command line
    st = text.ok() ? pod.session->write_file(pod.container->env_file, *text, 0600) : text.error();
  } else if (st.ok()) {
    st = install_env(*pod.session, pod.paths, env);
  }
  if (!st.ok()) return ctx_.failed(st.error(), "prepare pod", detail);
  if (pod.container) {
    Outcome pulled = pull_step_image(pod, stop, detail);
    if (pulled != Outcome::kOk) return pulled;
    std::string checked;  // job/container_checks.h: the NVIDIA runtime, the volume's writability
    Status usable = check_step_container(
        *pod.session, *pod.container, pod.paths.volume,
        [&](bool is_err, const std::string& line) {
          ctx_.moving();
          if (is_err) ctx_.remote_line(true, line);
        },
        stop, &checked);
    if (!usable.ok()) return ctx_.failed(usable.error(), "check pod", detail);
    ctx_.say(checked);
  }
  *detail = pod.target.user + "@" + pod.target.host + ":" + std::to_string(pod.target.port) +
            ", host key " + pod.target.pinned_host_key;
  if (pod.container) *detail += ", steps in image " + pod.container->image;
  ctx_.say("ssh " + pod.target.host + ":" + std::to_string(pod.target.port) + " ready after " +
           std::to_string(static_cast<int>(seconds_since(d_.clock, start))) + " s");
  return ctx_.unless_stopped("ssh", detail);  // not a provider name
}

Outcome PodConnection::pull_step_image(PodHandle& pod, const std::function<bool()>& stop,
                                       std::string* detail) {
  const std::string& image = pod.container->image;
  const MonoTime start = d_.clock.mono_now();
  auto elapsed = [&] {
    return static_cast<int>(std::chrono::duration<double>(d_.clock.mono_now() - start).count());
  };
  ctx_.say("pulling the spec's image " + image + " on pod " + pod.record.pod_id +
           " (its steps run in it, with docker)");
  Status st = pull_image(
      *pod.session, image,
      [&](bool is_err, const std::string& line) {
        ctx_.moving();
        ctx_.remote_line(is_err, line);
      },
      stop);
  if (!st.ok()) return ctx_.failed(st.error(), "pull image", detail);
  ctx_.say("image " + image + " ready in " + std::to_string(elapsed()) + " s");
  return ctx_.unless_stopped("pull image", detail);
}

void PodConnection::publish_ssh_host(const PodHandle& pod) {
  // The upload's CPU pod has its own alias; the prepare step's pod, as before, the GPU pod's
  // (which replaces its entry once it answers).
  const bool cpu = pod.kind == PodKind::kCpu;
  // A Host entry for `ssh burst-<job>` in the file burst owns (util/ssh_hosts_file.h); failing
  // to write it never fails the job.
  std::error_code ec;
  if (d_.config.config_dir.empty() || !std::filesystem::is_directory(d_.config.config_dir, ec))
    return;
  const std::string path = ssh_hosts_path(d_.config.config_dir);
  SshHostEntry e;
  const std::string job = in_.job_id;
  if (cpu) {
    e.aliases = {ssh_host_alias(job, -1, true)};
  } else if (ctx_.wide()) {
    e.aliases = {ssh_host_alias(job, in_.worker.index)};
    if (in_.worker.index == 0) e.aliases.push_back(ssh_host_alias(job));
  } else {
    e.aliases = {ssh_host_alias(job)};
  }
  e.job_id = job;
  e.pod_id = pod.record.pod_id;
  e.host = pod.target.host;
  e.port = pod.target.port;
  e.user = pod.target.user;
  e.identity_file = pod.target.private_key_path;
  e.known_hosts_file = d_.config.state_dir + "/ssh/" + pod.record.pod_id + ".known_hosts";
  // The pinned host keys: the user's alone, as the rest of the state dir (config/private_dirs).
  std::filesystem::create_directories(d_.config.state_dir + "/ssh", ec);
  std::filesystem::permissions(d_.config.state_dir + "/ssh", std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::replace, ec);
  if (Status st = add_ssh_host(path, e); !st.ok()) {
    ctx_.say("ssh config entry not written: " + st.error().message);
    return;
  }
  const char* home = std::getenv("HOME");
  const bool included = home && ssh_config_includes(std::string(home) + "/.ssh/config", path);
  ctx_.say("`ssh " + e.aliases.front() + "` reaches this pod" +
           (included ? "" : " once ~/.ssh/config starts with: Include " + path));
}

}  // namespace burst
