// `burst ssh JOB [worker] [-- CMD]` and `burst exec JOB [worker] -- CMD`: into a live pod of a
// running job. The store names the job's pods; the provider gives the pod's SSH endpoint; the
// host key must be the one the job pinned at first contact, and burst's own key logs in.
// exec runs the command through burst's SSH client (libssh, as the job does) and exits with its
// status; ssh hands the terminal to OpenSSH's `ssh`, with a known_hosts file holding only the
// pinned key (from ssh-keyscan, checked against the fingerprint), and exits with its status.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/job_json.h"
#include "registry.h"
#include "util/shell.h"

namespace burst {
namespace {

struct LivePod {
  PodRecord record;
  SshEndpoint ssh;
};

// The pod `worker` names among the job's live pods: "" or "gpu" the first GPU pod, "cpu" the
// upload pod, N the N-th GPU pod (0-based, in creation order).
Result<LivePod> find_pod(const SshArgs& given, const Config& config, Clock& clock) {
  auto store = open_store(config);
  if (!store.ok()) return store.error();
  SshArgs args = given;
  // No job named: the latest. `burst ssh 1` and `burst ssh cpu` name a worker of the latest job
  // (a job id is never "gpu", "cpu" or a short number).
  const bool worker_word = args.job == "gpu" || args.job == "cpu" ||
                           (!args.job.empty() && args.job.size() <= 3 &&
                            args.job.find_first_not_of("0123456789") == std::string::npos);
  if (worker_word && args.worker.empty()) std::swap(args.job, args.worker);
  if (args.job.empty()) {
    auto latest = latest_job_id(**store);
    if (!latest.ok()) return latest.error();
    args.job = *latest;
  }
  auto job = (*store)->get_job(args.job);
  if (!job.ok())
    return make_error(ErrorCode::kNotFound, "no job " + args.job + " (burst jobs lists them)");
  if (job->finished_ms != 0)
    return make_error(ErrorCode::kNotFound, "job " + args.job + " has ended (" +
                                                to_string(job->state) + "); its pods are deleted");
  auto pods = (*store)->pods_of_job(args.job);
  if (!pods.ok()) return pods.error();
  const std::string role = args.worker == "cpu" ? "cpu" : "gpu";
  int index = 0;
  if (!args.worker.empty() && args.worker != "gpu" && args.worker != "cpu") {
    if (args.worker.size() > 3 || args.worker.find_first_not_of("0123456789") != std::string::npos)
      return make_error(
          ErrorCode::kInvalid,
          "worker: expected gpu, cpu or a worker number, got \"" + args.worker + "\"");
    index = std::stoi(args.worker);
  }
  const PodRecord* chosen = nullptr;
  for (const PodRecord& p : *pods) {
    if (p.role != role || p.state != PodRecordState::kAlive || p.pod_id.empty()) continue;
    if (index-- == 0) {
      chosen = &p;
      break;
    }
  }
  if (!chosen)
    return make_error(ErrorCode::kNotFound, "job " + args.job + " has no live " + role + " pod" +
                                                (args.worker.empty() ? "" : " " + args.worker));
  if (chosen->host_key.empty())
    return make_error(ErrorCode::kNotFound, "job " + args.job + ": pod " + chosen->pod_id +
                                                " has not been reached over SSH yet");
  auto provider = make_provider(chosen->provider, config, clock);
  if (!provider.ok()) return provider.error();
  auto pod = (*provider)->get_pod(chosen->pod_id);
  if (!pod.ok()) return with_context(pod.error(), chosen->provider + ": pod " + chosen->pod_id);
  if (pod->ssh.port == 0 || pod->ssh.host.empty())
    return make_error(ErrorCode::kNotFound,
                      chosen->provider + ": pod " + chosen->pod_id + " has no SSH endpoint");
  return LivePod{*chosen, pod->ssh};
}

// One shell word per argument, except a single argument, which is a shell command line as ssh
// takes it (`burst exec JOB -- 'ls $BURST_VOLUME'`).
std::string command_line(const std::vector<std::string>& argv) {
  if (argv.size() == 1) return argv.front();
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + shell_quote(a);
  return out;
}

std::string capture(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// A known_hosts file holding only the host key whose fingerprint the job pinned.
Result<std::string> pinned_known_hosts(const LivePod& pod, const Config& config) {
  const std::string dir = config.state_dir + "/ssh";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string scanned = dir + "/" + pod.record.pod_id + ".scan";
  const std::string known = dir + "/" + pod.record.pod_id + ".known_hosts";
  {
    std::ofstream f(scanned, std::ios::trunc);
    f << capture("ssh-keyscan -T 10 -p " + std::to_string(pod.ssh.port) + " " +
                 shell_quote(pod.ssh.host) + " 2>/dev/null");
  }
  std::vector<std::string> keys;
  {
    std::ifstream f(scanned);
    for (std::string line; std::getline(f, line);)
      if (!line.empty() && line[0] != '#') keys.push_back(line);
  }
  // `ssh-keygen -lf` prints one "BITS SHA256:... HOST (TYPE)" line per key, in file order.
  const std::string prints = capture("ssh-keygen -lf " + shell_quote(scanned) + " 2>/dev/null");
  std::filesystem::remove(scanned, ec);
  size_t i = 0, start = 0;
  for (size_t end; (end = prints.find('\n', start)) != std::string::npos; start = end + 1, ++i) {
    const std::string line = prints.substr(start, end - start);
    if (i < keys.size() && line.find(" " + pod.record.host_key + " ") != std::string::npos) {
      std::ofstream f(known, std::ios::trunc);
      f << keys[i] << "\n";
      return known;
    }
  }
  return make_error(ErrorCode::kConnection, "pod " + pod.record.pod_id + " at " + pod.ssh.host +
                                                ":" + std::to_string(pod.ssh.port) +
                                                " did not offer the host key " +
                                                pod.record.host_key + " pinned by the job");
}

}  // namespace

int cmd_exec(const SshArgs& args) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(config.error(), ErrorOrigin::kConfig);
  SystemClock clock;
  auto pod = find_pod(args, *config, clock);
  if (!pod.ok()) return fail(pod.error());
  SshTarget target{pod->ssh.host,
                   pod->ssh.port,
                   pod->ssh.user,
                   pod->ssh.identity_file.empty() ? config->ssh_key : pod->ssh.identity_file,
                   pod->record.host_key,
                   15,
                   10,
                   /*no_progress_timeout_s=*/24 * 3600};
  auto connector = make_connector(pod->record.provider);
  auto session = connector->connect(target);
  if (!session.ok()) return fail(session.error());
  install_signal_handlers();
  OutputSink sink{[](const char* d, size_t n) { std::cout.write(d, n).flush(); },
                  [](const char* d, size_t n) { std::cerr.write(d, n).flush(); }};
  auto status =
      (*session)->exec(command_line(args.command), sink, [] { return g_interrupts.load() > 0; });
  if (!status.ok()) return fail(status.error());
  return *status;
}

int cmd_ssh(const SshArgs& args) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(config.error(), ErrorOrigin::kConfig);
  SystemClock clock;
  auto pod = find_pod(args, *config, clock);
  if (!pod.ok()) return fail(pod.error());
  auto known = pinned_known_hosts(*pod, *config);
  if (!known.ok()) return fail(known.error());
  std::vector<std::string> argv = {
      "ssh",  // not a provider name
      "-i",
      pod->ssh.identity_file.empty() ? config->ssh_key : pod->ssh.identity_file,
      "-p",
      std::to_string(pod->ssh.port),
      "-o",
      "IdentitiesOnly=yes",
      "-o",
      "StrictHostKeyChecking=yes",
      "-o",
      "UserKnownHostsFile=" + *known,
      "-o",
      "GlobalKnownHostsFile=/dev/null",
      "-o",
      "LogLevel=ERROR",
      pod->ssh.user + "@" + pod->ssh.host};
  if (!args.command.empty()) {
    argv.push_back("--");
    argv.push_back(command_line(args.command));
  }
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::cout << std::flush;
  execvp("ssh", cargv.data());  // not a provider name
  return fail(kExitFailure, std::string("cannot run ssh: ") + std::strerror(errno));
}

}  // namespace burst
