#include "job/container_checks.h"

#include "job/line_splitter.h"
#include "util/shell.h"

namespace burst {
namespace {

struct Ran {
  int status = 0;
  std::string out, err;  // the first 4 KiB of each
};

Result<Ran> run_check(RemoteSession& session, const std::string& command,
                      const std::function<void(bool, const std::string&)>& on_line,
                      const std::function<bool()>& should_stop) {
  constexpr size_t kMax = 4096;
  Ran ran;
  auto keep = [&](std::string* into, bool is_err) {
    return [&, into, is_err](const std::string& l) {
      on_line(is_err, l);
      if (into->size() < kMax) *into += l.substr(0, kMax - into->size()) + "\n";
    };
  };
  LineSplitter out_lines(keep(&ran.out, false), 1024);
  LineSplitter err_lines(keep(&ran.err, true), 1024);
  OutputSink sink{[&](const char* d, size_t n) { out_lines.feed(d, n); },
                  [&](const char* d, size_t n) { err_lines.feed(d, n); }};
  auto status = session.exec(command, sink, should_stop);
  out_lines.flush();
  err_lines.flush();
  if (!status.ok()) return status.error();
  ran.status = *status;
  while (!ran.err.empty() && (ran.err.back() == '\n' || ran.err.back() == ' ')) ran.err.pop_back();
  return ran;
}

}  // namespace

std::string nvidia_runtime_command() {
  return docker_command_prelude() +
         "has() { $D info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '\"nvidia\"'; }; "
         "if has; then echo 'nvidia-runtime: present'; exit 0; fi; "
         "if ! command -v nvidia-ctk >/dev/null 2>&1; then echo 'docker lists no nvidia runtime "
         "and the VM has no nvidia-ctk (NVIDIA Container Toolkit), so --gpus all cannot give a "
         "container its GPUs' >&2; exit 4; fi; "
         "S=; [ \"$(id -u)\" = 0 ] || S='sudo -n'; "
         "echo 'docker lists no nvidia runtime: nvidia-ctk runtime configure --runtime=docker, "
         "then systemctl restart docker'; "
         "if ! $S nvidia-ctk runtime configure --runtime=docker || ! $S systemctl restart docker; "
         "then echo 'configuring the NVIDIA runtime for docker failed (above)' >&2; exit 5; fi; "
         "i=0; while [ $i -lt 30 ]; do if has; then echo 'nvidia-runtime: configured'; exit 0; "
         "fi; i=$((i + 1)); sleep 1; done; "
         "echo 'docker lists no nvidia runtime even after nvidia-ctk runtime configure and a "
         "restart' >&2; exit 6";
}

std::string volume_write_check_command(const StepContainer& c, const std::string& volume) {
  const std::string inner =
      "f=.burst-write-check.$$; if (: > \"$f\") 2>/dev/null && rm -f \"$f\"; then echo writable; "
      "else echo \"not writable by uid $(id -u) gid $(id -g)\" >&2; exit 3; fi";
  std::string cmd = docker_command_prelude() + "$D run --rm --init --name " +
                    shell_quote(c.prefix + "-volume-check");
  if (c.gpus) cmd += " --gpus all";
  cmd += " --env-file " + shell_quote(c.env_file) + " -v " + shell_quote(volume + ":" + volume) +
         " -w " + shell_quote(volume) + " " + shell_quote(c.image) + " sh -c " + shell_quote(inner);
  return cmd;
}

Status check_step_container(RemoteSession& session, const StepContainer& c,
                            const std::string& volume,
                            const std::function<void(bool, const std::string&)>& on_line,
                            const std::function<bool()>& should_stop, std::string* said) {
  said->clear();
  if (c.gpus) {
    auto ran = run_check(session, nvidia_runtime_command(), on_line, should_stop);
    if (!ran.ok()) return with_context(ran.error(), "check the NVIDIA container runtime");
    if (ran->status != 0)
      return make_error(ErrorCode::kRemoteFailed,
                        "the VM cannot run the steps' containers with their GPUs: " +
                            (ran->err.empty() ? "exit " + std::to_string(ran->status) : ran->err));
    *said = ran->out.find("nvidia-runtime: configured") != std::string::npos
                ? "NVIDIA container runtime configured for docker (nvidia-ctk)"
                : "NVIDIA container runtime present";
  }
  auto ran = run_check(session, volume_write_check_command(c, volume), on_line, should_stop);
  if (!ran.ok()) return with_context(ran.error(), "check the volume is writable");
  if (ran->status == 3 && ran->err.find("not writable by uid") != std::string::npos)
    return make_error(ErrorCode::kInvalid,
                      "the volume " + volume + " is not writable by the steps' user inside " +
                          c.image + " (" + ran->err.substr(ran->err.rfind("not writable")) +
                          "): the file system may map root to nobody (NFS root_squash), or the "
                          "directory belongs to another user; use an image whose user owns it");
  if (ran->status != 0)
    return make_error(ErrorCode::kRemoteFailed,
                      "the volume write check in " + c.image + " failed: " +
                          (ran->err.empty() ? "exit " + std::to_string(ran->status) : ran->err));
  *said +=
      std::string(said->empty() ? "" : "; ") + "volume " + volume + " writable by the steps' user";
  return Status::Ok();
}

}  // namespace burst
