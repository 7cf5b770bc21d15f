#include "job/step_container.h"

#include <algorithm>

#include "job/line_splitter.h"
#include "util/shell.h"

namespace burst {

std::string container_prefix(const std::string& job_id) {
  std::string out = "burst-" + job_id;
  for (char& c : out)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.' || c == '-'))
      c = '-';
  return out;
}

Result<std::string> docker_env_file(const std::map<std::string, std::string>& env) {
  std::string text = "# written by burst; mode 0600\n";
  for (const auto& [k, v] : env) {
    if (v.find_first_of("\r\n") != std::string::npos)
      return make_error(ErrorCode::kInvalid,
                        "env " + k +
                            " holds a line break, which docker's --env-file cannot carry (this "
                            "provider runs the steps in the spec's image with docker)");
    text += k + "=" + v + "\n";
  }
  return text;
}

std::string docker_command_prelude() {
  return "if ! command -v docker >/dev/null 2>&1; then echo 'docker: command not found on the VM "
         "(the steps run in the spec'\\''s image with docker)' >&2; exit 127; fi; "
         "D=docker; docker info >/dev/null 2>&1 || D='sudo -n docker'; ";
}

std::string container_run_command(const StepContainer& c, const std::string& pod_dir,
                                  const std::string& step) {
  // The image's own shell runs the script: bash -e as on the other clouds, sh -e without bash.
  const std::string script = pod_dir + "/" + step + ".sh";
  const std::string inner = "if command -v bash >/dev/null 2>&1; then exec bash -e " +
                            shell_quote(script) + "; else exec sh -e " + shell_quote(script) +
                            "; fi";
  std::string cmd = "$D run --rm --init --name " + shell_quote(c.prefix + "-" + step);
  if (c.gpus) cmd += " --gpus all";
  cmd += " --env-file " + shell_quote(c.env_file);
  std::vector<std::string> seen;
  for (const auto& m : c.mounts) {
    if (m.empty() || std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
    seen.push_back(m);
    cmd += " -v " + shell_quote(m + ":" + m);
  }
  cmd +=
      " -w " + shell_quote(c.workdir) + " " + shell_quote(c.image) + " sh -c " + shell_quote(inner);
  return cmd;
}

std::string container_kill_command(const StepContainer& c, const std::string& step) {
  return docker_command_prelude() + "$D kill " + shell_quote(c.prefix + "-" + step) +
         " >/dev/null 2>&1; true";
}

Error pull_error(const std::string& image, int exit_status, const std::string& docker_stderr) {
  std::string msg = docker_stderr;
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r' || msg.back() == ' '))
    msg.pop_back();
  if (msg.empty()) msg = "docker exited " + std::to_string(exit_status);
  // docker's messages for an image that is not there: "manifest for X not found: manifest
  // unknown", "pull access denied for X, repository does not exist or may require 'docker
  // login'", "invalid reference format".
  const bool missing = msg.find("not found") != std::string::npos ||
                       msg.find("manifest unknown") != std::string::npos ||
                       msg.find("does not exist") != std::string::npos ||
                       msg.find("access denied") != std::string::npos ||
                       msg.find("invalid reference format") != std::string::npos;
  return make_error(missing ? ErrorCode::kInvalid : ErrorCode::kRemoteFailed,
                    "cannot pull the spec's image " + image + " on the pod: " + msg);
}

Status pull_image(RemoteSession& session, const std::string& image,
                  const std::function<void(bool, const std::string&)>& on_line,
                  const std::function<bool()>& should_stop) {
  constexpr size_t kMaxErr = 4096;
  std::string err;
  LineSplitter out_lines([&](const std::string& l) { on_line(false, l); }, 1024);
  LineSplitter err_lines(
      [&](const std::string& l) {
        on_line(true, l);
        if (err.size() < kMaxErr) err += l.substr(0, kMaxErr - err.size()) + "\n";
      },
      1024);
  OutputSink sink{[&](const char* d, size_t n) { out_lines.feed(d, n); },
                  [&](const char* d, size_t n) { err_lines.feed(d, n); }};
  auto status =
      session.exec(docker_command_prelude() + "$D pull " + shell_quote(image), sink, should_stop);
  out_lines.flush();
  err_lines.flush();
  if (!status.ok()) return with_context(status.error(), "pull the spec's image " + image);
  if (*status != 0) return pull_error(image, *status, err);
  return Status::Ok();
}

}  // namespace burst
