#include "job/remote_steps.h"

#include <algorithm>
#include <chrono>

#include "job/step_answers.h"
#include "job/step_container.h"
#include "util/shell.h"

namespace burst {

namespace {

// run_capture for a short answer: stdout is kept up to `limit` bytes (stderr up to 4 KiB, for the
// error message); a pod that sends more is stopped and refused, never buffered. A non-zero exit
// is kRemoteFailed with stderr, as run_capture's.
Result<std::string> capture_small(RemoteSession& session, const std::string& command,
                                  size_t limit = kMaxAnswer) {
  constexpr size_t kMaxErr = 4096;
  std::string out, err;
  bool over = false;
  OutputSink sink{[&](const char* d, size_t n) {
                    if (out.size() + n > limit)
                      over = true;
                    else
                      out.append(d, n);
                  },
                  [&](const char* d, size_t n) {
                    err.append(d, std::min(n, kMaxErr - std::min(kMaxErr, err.size())));
                  }};
  auto status = session.exec(command, sink, [&] { return over; });
  if (over)
    return make_error(ErrorCode::kRemoteFailed,
                      "the pod's answer is longer than " + std::to_string(limit) + " bytes");
  if (!status.ok()) return status.error();
  if (*status != 0) {
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return make_error(ErrorCode::kRemoteFailed,
                      "command exited " + std::to_string(*status) + ": " + err);
  }
  return out;
}

}  // namespace

std::string probe_pod_command(const std::string& mount_path, const std::string& pod_dir) {
  // mount_path is the spec's volume.mount: one quoted word, never spliced into an expansion
  // (where a quote or "}" in it would end the word). `--` keeps a leading dash an operand. The
  // answer is NUL-separated, so no byte of either path can break the framing.
  return "v=${BURST_VOLUME:-}; [ -n \"$v\" ] || v=" + shell_quote(mount_path) +
         "; d=${BURST_POD_DIR:-}; [ -n \"$d\" ] || d=" +
         (pod_dir.empty() ? std::string("$HOME/.burst-pod") : shell_quote(pod_dir)) +
         "; "
         "mkdir -p -- \"$d\" && chmod 700 -- \"$d\" && mkdir -p -- \"$v\" && "
         "printf '%s\\000%s\\000' \"$v\" \"$d\"";
}

Result<PodPaths> probe_pod(RemoteSession& session, const std::string& mount_path,
                           const std::string& pod_dir) {
  auto out = capture_small(session, probe_pod_command(mount_path, pod_dir));
  if (!out.ok()) return with_context(out.error(), "probe pod");
  auto answer = parse_probe_answer(*out);
  if (!answer.ok()) return answer.error();
  return PodPaths{answer->volume, answer->pod_dir};
}

Status install_env(RemoteSession& session, const PodPaths& paths,
                   const std::map<std::string, std::string>& env) {
  std::string text = "# written by burst; mode 0600\n";
  for (const auto& [k, v] : env) text += "export " + k + "=" + shell_quote(v) + "\n";
  return session.write_file(paths.pod_dir + "/env.sh", text, 0600);
}

namespace {

std::string step_base(const PodPaths& paths, const std::string& step) {
  return shell_quote(paths.pod_dir + "/" + step);
}

// Printed first on each channel: what came before it is the login shell's own noise (a .bashrc
// that sshd makes bash read), not the step's output, and is dropped so the byte counts stay
// offsets into the step's files.
constexpr char kSentinel[] = "\036burst-follow\036\n";

// Starts the supervisor (needs b=<step base>); exits 1 if it cannot.
// With a container (job/step_container.h) the supervisor runs the step in it, and the env file
// is docker's, not sourced on the VM.
// Once only: `mkdir <step>.launched` is the pod's own atomic lock, so a second launch of the same
// step (a daemon that took the job over and cannot tell whether the first one got this far) never
// starts it again: it only waits for the first supervisor's pid and follows it. The script
// arrives as <step>.sh.new and becomes <step>.sh under the lock, so a running step's script is
// never rewritten under it.
std::string launch_command(const PodPaths& paths, const std::string& workdir,
                           const StepContainer* container, const std::string& step) {
  // The supervisor gets its files' common prefix as $0, so no path is quoted twice. setsid makes
  // it a session and process group leader: its pid is the group stop_step signals, and it is out
  // of the SSH session, which may die (burstd killed, network lost) without stopping the step.
  const std::string body =
      container ? "(" + docker_command_prelude() +
                      container_run_command(*container, paths.pod_dir, step) +
                      ") >\"$0.out\" 2>\"$0.err\"; "
                : "if command -v bash >/dev/null 2>&1; then bash -e \"$0.sh\" >\"$0.out\" "
                  "2>\"$0.err\"; else sh -e \"$0.sh\" >\"$0.out\" 2>\"$0.err\"; fi; ";
  const std::string sup = "echo $$ > \"$0.pid.tmp\" && mv \"$0.pid.tmp\" \"$0.pid\"; " + body +
                          "echo $? > \"$0.status.tmp\" && mv \"$0.status.tmp\" \"$0.status\"";
  const std::string env = container ? "" : " && . " + shell_quote(paths.pod_dir + "/env.sh");
  return "cd " + shell_quote(workdir) + env +
         " || exit 1; if mkdir \"$b.launched\" 2>/dev/null; then "
         "mv -f \"$b.sh.new\" \"$b.sh\" && rm -f \"$b.pid\" \"$b.status\" && : > \"$b.out\" && "
         ": > \"$b.err\" || exit 1; s=" +
         shell_quote(sup) +
         "; if command -v setsid >/dev/null 2>&1; then setsid sh -c \"$s\" \"$b\" </dev/null "
         ">/dev/null 2>&1 & else nohup sh -c \"$s\" \"$b\" </dev/null >/dev/null 2>&1 & fi; "
         "else rm -f \"$b.sh.new\"; fi; "
         "i=0; while [ ! -s \"$b.pid\" ]; do i=$((i+1)); if [ $i -gt 200 ]; then "
         "echo 'the step supervisor did not start' >&2; exit 1; fi; sleep 0.05; done; ";
}

// A POSIX sh loop on the pod: every 0.2 s it sends what each file gained, stdout's on stdout and
// stderr's on stderr, so the bytes on each channel are the file's bytes from the offset. It
// reads once more after the status appears (the output is complete by then) and exits with the
// step's status; 255 when the supervisor is gone without one, or the status file holds no number
// 0..253 (burst then reads the file itself, bounded, and says which). After `quiet_s` without
// output it exits kQuietExit: the step is alive and quiet, and burst follows it again from the
// offsets it has. So a healthy follower always sends something (output or an exit) within
// quiet_s, and a pod that sends nothing for longer has stopped answering (StepTimeouts).
constexpr int kQuietExit = 254;

std::string follow_loop(StepOffsets from, int quiet_s) {
  return "o=" + std::to_string(from.out) + "; e=" + std::to_string(from.err) +
         "; q=0; while :; do f=0; g=0; if [ -f \"$b.status\" ]; then f=1; else "
         "p=$(cat \"$b.pid\" 2>/dev/null); if [ -n \"$p\" ] && ! kill -0 \"$p\" 2>/dev/null && "
         "[ ! -f \"$b.status\" ]; then f=2; fi; fi; "
         "n=$(($(wc -c 2>/dev/null <\"$b.out\" || echo 0))); if [ \"$n\" -gt \"$o\" ]; then "
         "tail -c +$((o+1)) \"$b.out\" | head -c $((n-o)); o=$n; g=1; fi; "
         "n=$(($(wc -c 2>/dev/null <\"$b.err\" || echo 0))); if [ \"$n\" -gt \"$e\" ]; then "
         "tail -c +$((e+1)) \"$b.err\" | head -c $((n-e)) >&2; e=$n; g=1; fi; "
         "if [ $f = 1 ]; then s=$(head -c 16 \"$b.status\"); case \"$s\" in "
         "[0-9]|[0-9][0-9]|[0-9][0-9][0-9]) [ \"$s\" -le 253 ] && exit \"$s\";; esac; exit 255; "
         "fi; "
         "if [ $f = 2 ]; then exit 255; fi; "
         "if [ $g = 1 ]; then q=0; else q=$((q+1)); fi; "
         "if [ $q -ge " +
         std::to_string(quiet_s * 5) + " ]; then exit " + std::to_string(kQuietExit) +
         "; fi; "
         "sleep 0.2; done";
}

// Drops a channel's bytes up to and including the sentinel, then passes the rest on. Keeps at
// most the sentinel's length of what came before it, so noise of any size costs no memory and
// each byte is looked at a bounded number of times.
class AfterSentinel {
 public:
  explicit AfterSentinel(LineSplitter& lines) : lines_(lines) {}
  void feed(const char* d, size_t n) {
    if (seen_) return lines_.feed(d, n);
    constexpr size_t kLen = sizeof kSentinel - 1;
    while (n > 0) {
      const size_t take = std::min(n, kChunk);
      head_.append(d, take);
      d += take;
      n -= take;
      const size_t at = head_.find(kSentinel);
      if (at != std::string::npos) {
        seen_ = true;
        const std::string rest = head_.substr(at + kLen);
        head_.clear();
        head_.shrink_to_fit();
        lines_.feed(rest.data(), rest.size());
        return lines_.feed(d, n);
      }
      if (head_.size() >= kLen) head_.erase(0, head_.size() - (kLen - 1));
    }
  }

 private:
  static constexpr size_t kChunk = 64 * 1024;
  LineSplitter& lines_;
  std::string head_;
  bool seen_ = false;
};

// One follower command. Sets *quiet when it ended with kQuietExit (the step goes on): *at then
// holds the offsets to follow again from, and the partial line it held is read again then.
Result<int> follow_once(RemoteSession& session, const PodPaths& paths, const std::string& step,
                        const std::string& launch, StepOffsets from, const StepTimeouts& limits,
                        const std::function<void(bool, const std::string&)>& on_line,
                        const std::function<void(const StepOffsets&)>& on_offsets,
                        const std::function<bool()>& should_stop, StepOffsets* at, bool* quiet) {
  const std::string cmd = "b=" + step_base(paths, step) + "; printf '" +
                          std::string(kSentinel, sizeof kSentinel - 2) + "\\n'; printf '" +
                          std::string(kSentinel, sizeof kSentinel - 2) + "\\n' >&2; " + launch +
                          follow_loop(from, limits.quiet_s);
  LineSplitter out([&](const std::string& l) { on_line(false, l); });
  LineSplitter err([&](const std::string& l) { on_line(true, l); });
  AfterSentinel out_body(out), err_body(err);
  StepOffsets last = from;
  auto report = [&] {
    StepOffsets now{from.out + out.complete_bytes(), from.err + err.complete_bytes()};
    if (now.out != last.out || now.err != last.err) {
      last = now;
      on_offsets(now);
    }
  };
  // Any byte, the sentinel included, shows the follower is alive. The pod's sshd may keep
  // answering keepalives while the follower is frozen: only bytes count. Wall time, as in the
  // SSH adapter's own no-progress timeout: this guards a link, not a simulated schedule.
  using Steady = std::chrono::steady_clock;
  auto last_byte = Steady::now();
  bool silent = false;
  OutputSink sink{[&](const char* d, size_t n) {
                    last_byte = Steady::now();
                    out_body.feed(d, n);
                    report();
                  },
                  [&](const char* d, size_t n) {
                    last_byte = Steady::now();
                    err_body.feed(d, n);
                    report();
                  }};
  auto stop = [&] {
    if (should_stop && should_stop()) return true;
    silent = Steady::now() - last_byte > std::chrono::seconds(limits.silence_s);
    return silent;
  };
  auto status = session.exec(cmd, sink, stop);
  if (!status.ok() && silent)
    return make_error(ErrorCode::kTimeout,
                      "no bytes from the pod for " + std::to_string(limits.silence_s) +
                          " s while following the " + step + " step (its follower stopped)");
  if (!status.ok()) return status.error();
  if (*status == kQuietExit) {
    *quiet = true;
    *at = StepOffsets{from.out + out.complete_bytes(), from.err + err.complete_bytes()};
    return 0;
  }
  out.flush();
  err.flush();
  on_offsets(StepOffsets{from.out + out.complete_bytes(), from.err + err.complete_bytes()});
  if (*status != 255) return status;
  // 255: the step's own status, or a supervisor that died without writing one.
  auto written =
      capture_small(session, "cat " + shell_quote(paths.pod_dir + "/" + step + ".status"));
  if (!written.ok())
    return make_error(ErrorCode::kRemoteFailed,
                      "the " + step + " step's supervisor stopped without an exit status");
  auto code = parse_step_status(*written);
  if (!code.ok()) return with_context(code.error(), "the " + step + " step");
  return *code;
}

Result<int> follow(RemoteSession& session, const PodPaths& paths, const std::string& step,
                   const std::string& launch, StepOffsets from, const StepTimeouts& limits,
                   const std::function<void(bool, const std::string&)>& on_line,
                   const std::function<void(const StepOffsets&)>& on_offsets,
                   const std::function<bool()>& should_stop) {
  std::string start = launch;  // only the first command starts the step
  while (true) {
    bool quiet = false;
    auto r = follow_once(session, paths, step, start, from, limits, on_line, on_offsets,
                         should_stop, &from, &quiet);
    if (!r.ok() || !quiet) return r;
    start.clear();
  }
}

}  // namespace

Status check_step_files(RemoteSession& session, const PodPaths& paths, const std::string& step) {
  const std::string b = step_base(paths, step);
  auto out = capture_small(session, "b=" + b +
                                        "; if [ -s \"$b.pid\" ] && [ -f \"$b.out\" ] && [ -f "
                                        "\"$b.err\" ]; then echo yes; else echo no; fi");
  if (!out.ok()) return out.error();
  auto yes = parse_yes_no(*out);
  if (!yes.ok()) return with_context(yes.error(), "check the " + step + " step's files");
  if (!*yes)
    return make_error(ErrorCode::kNotFound,
                      "the " + step + " step's supervisor files are not on the pod");
  return Status::Ok();
}

Result<int> follow_step(RemoteSession& session, const PodPaths& paths, const std::string& step,
                        StepOffsets from,
                        const std::function<void(bool, const std::string&)>& on_line,
                        const std::function<void(const StepOffsets&)>& on_offsets,
                        const std::function<bool()>& should_stop, const StepTimeouts& limits) {
  return follow(session, paths, step, "", from, limits, on_line, on_offsets, should_stop);
}

Result<int> run_step(RemoteSession& session, const PodPaths& paths, const std::string& step,
                     const std::string& script, const std::string& workdir,
                     const std::function<void(bool, const std::string&)>& on_line,
                     const std::function<void(const StepOffsets&)>& on_offsets,
                     const std::function<bool()>& should_stop, const StepTimeouts& limits,
                     const StepContainer* container) {
  Status st = session.write_file(paths.pod_dir + "/" + step + ".sh.new", script + "\n", 0700);
  if (!st.ok()) return st.error();
  return follow(session, paths, step, launch_command(paths, workdir, container, step), {}, limits,
                on_line, on_offsets, should_stop);
}

void stop_step(RemoteSession& session, const PodPaths& paths, const std::string& step,
               const StepContainer* container) {
  const std::string pid_file = shell_quote(paths.pod_dir + "/" + step + ".pid");
  // A stop can land while the launch is on its way: the supervisor (setsid, out of the SSH
  // session) then writes its pid a moment after the follower was cut. Wait for it, bounded
  // (1.5 s), so that step is stopped too instead of running to its end.
  std::string command = "i=0; while [ ! -s " + pid_file +
                        " ] && [ $i -lt 15 ]; do sleep 0.1; i=$((i+1)); done; p=$(cat " + pid_file +
                        " 2>/dev/null) && [ -n \"$p\" ] && "
                        "{ kill -TERM -- -$p 2>/dev/null || kill -TERM $p 2>/dev/null; sleep 1; "
                        "kill -KILL -- -$p 2>/dev/null || kill -KILL $p 2>/dev/null; }; true";
  // The client's SIGTERM reached the container (docker forwards it); SIGKILL did not. In the same
  // command, not a second one: the job watchdog aborts a session that shows no progress for its
  // grace (3 s) after a stop, and on a busy pod or link the first command could use that up, so
  // the container's kill was never sent. (The pod's deletion stops the container regardless.)
  if (container) command += "; " + container_kill_command(*container, step);
  (void)capture_small(session, command);  // its answer is ignored, read no further than kMaxAnswer
}

}  // namespace burst
