#include "job/remote_steps.h"

#include "util/shell.h"

namespace burst {

void LineSplitter::feed(const char* data, size_t len) {
  for (size_t i = 0; i < len; ++i) {
    if (data[i] == '\n') {
      emit_(partial_);
      partial_.clear();
    } else if (data[i] != '\r') {
      partial_ += data[i];
    }
  }
}

void LineSplitter::flush() {
  if (!partial_.empty()) emit_(partial_);
  partial_.clear();
}

Result<PodPaths> probe_pod(RemoteSession& session, const std::string& mount_path) {
  auto out = session.run_capture("v=\"${BURST_VOLUME:-" + mount_path +
                                 "}\"; d=\"${BURST_POD_DIR:-$HOME/.burst-pod}\"; "
                                 "mkdir -p \"$d\" && chmod 700 \"$d\" && mkdir -p \"$v\" && printf "
                                 "'%s\\n%s\\n' \"$v\" \"$d\"");
  if (!out.ok()) return with_context(out.error(), "probe pod");
  size_t nl = out->find('\n');
  PodPaths p{out->substr(0, nl), nl == std::string::npos ? "" : out->substr(nl + 1)};
  while (!p.pod_dir.empty() && p.pod_dir.back() == '\n') p.pod_dir.pop_back();
  if (p.volume.empty() || p.pod_dir.empty())
    return make_error(ErrorCode::kInternal, "probe pod: unexpected answer");
  return p;
}

Status install_env(RemoteSession& session, const PodPaths& paths,
                   const std::map<std::string, std::string>& env) {
  std::string text = "# written by burst; mode 0600\n";
  for (const auto& [k, v] : env) text += "export " + k + "=" + shell_quote(v) + "\n";
  return session.write_file(paths.pod_dir + "/env.sh", text, 0600);
}

Result<int> run_step(RemoteSession& session, const PodPaths& paths, const std::string& step,
                     const std::string& script, const std::string& workdir,
                     const std::function<void(bool, const std::string&)>& on_line,
                     const std::function<bool()>& should_stop) {
  const std::string file = paths.pod_dir + "/" + step + ".sh";
  Status st = session.write_file(file, script + "\n", 0700);
  if (!st.ok()) return st.error();
  const std::string pid_file = paths.pod_dir + "/" + step + ".pid";
  // sshd starts each command in a new session, so this shell's PID is its process group's id.
  std::string cmd = "cd " + shell_quote(workdir) + " && . " +
                    shell_quote(paths.pod_dir + "/env.sh") + " && echo $$ > " +
                    shell_quote(pid_file) +
                    " && if command -v bash >/dev/null 2>&1; then exec bash -e " +
                    shell_quote(file) + "; else exec sh -e " + shell_quote(file) + "; fi";
  LineSplitter out([&](const std::string& l) { on_line(false, l); });
  LineSplitter err([&](const std::string& l) { on_line(true, l); });
  OutputSink sink{[&](const char* d, size_t n) { out.feed(d, n); },
                  [&](const char* d, size_t n) { err.feed(d, n); }};
  auto status = session.exec(cmd, sink, should_stop);
  out.flush();
  err.flush();
  return status;
}

void stop_step(RemoteSession& session, const PodPaths& paths, const std::string& step) {
  const std::string pid_file = shell_quote(paths.pod_dir + "/" + step + ".pid");
  (void)session.run_capture(
      "p=$(cat " + pid_file +
      " 2>/dev/null) && [ -n \"$p\" ] && "
      "{ kill -TERM -- -$p 2>/dev/null; sleep 1; kill -KILL -- -$p 2>/dev/null; }; true");
}

}  // namespace burst
