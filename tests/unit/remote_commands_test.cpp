// Every remote command burst builds, rendered with hostile values (quotes, $(), backticks,
// newlines, spaces, a "}" that would close a ${...}, leading dashes) and run under a real `sh`
// in a sandbox with a fake HOME: each must pass `sh -n`, and the value must arrive literally,
// never as code (no PWNED file appears). The session here is a local shell standing in for the
// pod's: what the SSH session would hand to the pod's shell, this one hands to /bin/sh.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "burst/remote.h"
#include "burst/spec.h"
#include "fakes/temp_dir.h"
#include "job/remote_steps.h"
#include "registry.h"
#include "sync/artefact_pull.h"
#include "sync/code_sync.h"
#include "util/shell.h"

namespace burst {
namespace {

namespace fs = std::filesystem;

// Values an attacker (or an unlucky spec) could put where burst builds a command.
const std::vector<std::string>& hostile() {
  static const std::vector<std::string> v = {
      "$(touch PWNED)",
      "`touch PWNED`",
      "'; touch PWNED; '",
      "\"; touch PWNED; \"",
      "}\"; touch PWNED; echo \"",  // closes the old "${BURST_VOLUME:-...}"
      "a b\tc  d",
      "x\ntouch PWNED\n",
      "$HOME ${HOME} ~",
      "* ? [a]",
      "\\\" \\' \\$",
      "a;touch PWNED&&b|touch PWNED",
  };
  return v;
}

std::string read_remote_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Whether any file or directory named exactly PWNED exists under `root`.
bool pwned(const std::string& root) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::end(it); it.increment(ec))
    if (it->path().filename() == "PWNED") return true;
  return false;
}

struct ShellRun {
  int status = -1;
  std::string out, err;
};

// /bin/sh -c `command` in `cwd` with HOME=`home` and a plain PATH, stdin from `input`.
ShellRun run_sh(const std::vector<std::string>& sh_args, const std::string& command,
                const std::string& cwd, const std::string& home, const std::string& input = "") {
  TempDir io;
  const std::string in = io.path() + "/in", out = io.path() + "/out", err = io.path() + "/err";
  std::ofstream(in) << input;
  pid_t pid = fork();
  if (pid == 0) {
    int i = ::open(in.c_str(), O_RDONLY), o = ::open(out.c_str(), O_WRONLY | O_CREAT, 0600),
        e = ::open(err.c_str(), O_WRONLY | O_CREAT, 0600);
    ::dup2(i, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    if (::chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<std::string> args = {"/usr/bin/timeout", "20", "/bin/sh"};
    args.insert(args.end(), sh_args.begin(), sh_args.end());
    args.push_back(command);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string h = "HOME=" + home;
    char path[] = "PATH=/usr/local/bin:/usr/bin:/bin";
    char* envp[] = {h.data(), path, nullptr};
    ::execve(argv[0], argv.data(), envp);
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), read_remote_file(out),
          read_remote_file(err)};
}

// `sh -n`: the command parses as the shell will parse it.
void expect_parses(const std::string& command) {
  TempDir t;
  ShellRun r = run_sh({"-n", "-c"}, command, t.path(), t.path());
  EXPECT_EQ(r.status, 0) << "sh -n failed: " << r.err << "\n" << command;
}

// A RemoteSession whose "pod" is /bin/sh in a sandbox; records every command it is given.
class ShellSession : public RemoteSession {
 public:
  ShellSession(std::string cwd, std::string home) : cwd_(std::move(cwd)), home_(std::move(home)) {}

  Result<int> exec(const std::string& command, const OutputSink& sink,
                   const std::function<bool()>&) override {
    commands.push_back(command);
    ShellRun r = run_sh({"-c"}, command, cwd_, home_);
    if (sink.out && !r.out.empty()) sink.out(r.out.data(), r.out.size());
    if (sink.err && !r.err.empty()) sink.err(r.err.data(), r.err.size());
    return r.status;
  }
  Result<std::string> run_capture(const std::string& command) override {
    commands.push_back(command);
    ShellRun r = run_sh({"-c"}, command, cwd_, home_);
    if (r.status != 0) return make_error(ErrorCode::kRemoteFailed, r.err);
    return r.out;
  }
  Status upload(const std::string&, const std::string&, uint32_t, int64_t) override {
    return make_error(ErrorCode::kInternal, "not here");
  }
  Status write_file(const std::string& path, const std::string& content, uint32_t mode) override {
    std::ofstream(path, std::ios::binary) << content;
    ::chmod(path.c_str(), mode);
    return Status::Ok();
  }
  Status mkdirs(const std::string& path, uint32_t) override {
    fs::create_directories(path);
    return Status::Ok();
  }
  Result<RemoteFileInfo> stat(const std::string&) override {
    return make_error(ErrorCode::kNotFound, "not here");
  }
  Status download(const std::string&, const std::string&) override {
    return make_error(ErrorCode::kInternal, "not here");
  }
  // Streamed commands are recorded, not run here (the tests run them with stdin closed).
  Result<std::unique_ptr<RemoteStream>> open_stream(const std::string& command) override {
    commands.push_back(command);
    return make_error(ErrorCode::kInternal, "recorded");
  }

  std::vector<std::string> commands;

 private:
  std::string cwd_, home_;
};

class RemoteCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = t_.path() + "/home";
    cwd_ = t_.path() + "/cwd";
    fs::create_directories(home_);
    fs::create_directories(cwd_);
  }
  TempDir t_;
  std::string home_, cwd_;
};

// volume.mount reaches the probe on pods where BURST_VOLUME is unset (every real cloud).
TEST_F(RemoteCommands, ProbePodTakesTheMountPathLiterally) {
  std::vector<std::string> mounts;
  for (const auto& h : hostile()) mounts.push_back(t_.path() + "/vol " + h);
  mounts.push_back("-p PWNED");  // a leading dash: an operand, not an option (made in cwd)
  for (const auto& mount : mounts) {
    expect_parses(probe_pod_command(mount));
    ShellSession pod(cwd_, home_);
    auto paths = probe_pod(pod, mount);
    ASSERT_TRUE(paths.ok()) << paths.error().message << "\n" << pod.commands.at(0);
    EXPECT_EQ(paths->volume, mount);
    EXPECT_EQ(paths->pod_dir, home_ + "/.burst-pod");
    const std::string made = mount[0] == '/' ? mount : cwd_ + "/" + mount;
    EXPECT_TRUE(fs::is_directory(made)) << "the directory has exactly the name given: " << mount;
    EXPECT_FALSE(pwned(t_.path())) << "ran code from the mount path: " << pod.commands.at(0);
  }
}

TEST_F(RemoteCommands, ProbePodPrefersBurstVolumeWhenThePodSetsIt) {
  ShellSession pod(cwd_, home_);
  const std::string vol = t_.path() + "/pod volume";
  auto paths = probe_pod(pod, "/workspace");
  ASSERT_TRUE(paths.ok());
  EXPECT_EQ(paths->volume, "/workspace") << "BURST_VOLUME unset: the mount path";
  // The same command with BURST_VOLUME set in the pod's environment.
  ShellRun r = run_sh(
      {"-c"},
      "BURST_VOLUME='" + vol + "'; export BURST_VOLUME; " + probe_pod_command("/x/$(touch PWNED)"),
      cwd_, home_);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\0')), vol);
  EXPECT_FALSE(fs::exists("/x")) << "the mount path was not used";
  EXPECT_FALSE(pwned(t_.path()));
}

// The step commands: the pod's private dir and the work dir (the code dir on the pod) with
// hostile names, an environment value with hostile bytes; the step runs and prints them back.
TEST_F(RemoteCommands, StepCommandsQuoteThePodDirTheWorkDirAndTheEnvironment) {
  for (const auto& h : {hostile()[0], hostile()[4], hostile()[6]}) {
    PodPaths paths{t_.path() + "/vol", t_.path() + "/pod " + h};
    const std::string workdir = t_.path() + "/work " + h;
    fs::create_directories(paths.pod_dir);
    fs::create_directories(workdir);
    ShellSession pod(cwd_, home_);
    ASSERT_TRUE(install_env(pod, paths, {{"HOSTILE", h}}).ok());
    std::vector<std::string> out;
    auto status = run_step(
        pod, paths, "run", "printf '%s|' \"$HOSTILE\"; pwd", workdir,
        [&](bool is_err, const std::string& line) {
          if (!is_err) out.push_back(line);
        },
        [](const StepOffsets&) {}, [] { return false; });
    ASSERT_TRUE(status.ok()) << status.error().message;
    EXPECT_EQ(*status, 0);
    std::string all;
    for (const auto& l : out) all += l + "\n";
    EXPECT_EQ(all, h + "|" + workdir + "\n") << "the value and the dir arrived literally";
    EXPECT_TRUE(check_step_files(pod, paths, "run").ok());
    stop_step(pod, paths, "run");
    for (const auto& c : pod.commands) expect_parses(c);
    EXPECT_FALSE(pwned(t_.path())) << h;
  }
}

// A stop that lands while the launch is on its way: the supervisor writes its pid only after
// stop_step was asked. The step is stopped all the same, not left to run to its end.
TEST_F(RemoteCommands, AStopBeforeTheSupervisorWroteItsPidStillStopsTheStep) {
  PodPaths paths{t_.path() + "/vol", t_.path() + "/pod"};
  fs::create_directories(paths.pod_dir);
  ShellSession pod(cwd_, home_);
  const std::string b = paths.pod_dir + "/run";
  ASSERT_TRUE(pod.run_capture("b=" + shell_quote(b) +
                              "; (sleep 0.5; exec setsid sh -c 'echo $$ > \"$0.pid\"; exec sleep "
                              "30' \"$b\") </dev/null >/dev/null 2>&1 &")
                  .ok());
  stop_step(pod, paths, "run");
  std::string pid = read_remote_file(b + ".pid");
  for (int i = 0; i < 30 && pid.empty(); ++i) {  // without the wait, it starts after the stop
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    pid = read_remote_file(b + ".pid");
  }
  ASSERT_FALSE(pid.empty()) << "the late supervisor never started";
  const pid_t p = static_cast<pid_t>(std::stol(pid));
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = ::kill(p, 0) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!gone) ::kill(-p, SIGKILL);
  EXPECT_TRUE(gone) << "the step outlived the stop";
}

// The launch is once-only on the pod: a daemon that took a job over and cannot tell whether the
// first daemon's launch got through launches again; that second launch follows the first step
// (its whole output, its exit status) and neither starts it again nor rewrites its script.
TEST_F(RemoteCommands, ASecondLaunchOfTheSameStepFollowsTheFirstAndNeverRunsItTwice) {
  PodPaths paths{t_.path() + "/vol", t_.path() + "/pod"};
  fs::create_directories(paths.pod_dir);
  ShellSession pod(cwd_, home_);
  ASSERT_TRUE(install_env(pod, paths, {}).ok());
  const std::string mark = t_.path() + "/mark";
  const std::string script = "echo ran >> " + shell_quote(mark) + "; echo first; sleep 1; exit 7";
  Result<int> first = 0;
  std::thread daemon_a([&] {
    ShellSession a(cwd_, home_);
    first = run_step(
        a, paths, "run", script, cwd_, [](bool, const std::string&) {}, [](const StepOffsets&) {},
        [] { return false; });
  });
  // The second launch comes while the first step runs (its supervisor has written its pid).
  for (int i = 0; i < 200 && read_remote_file(paths.pod_dir + "/run.pid").empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<std::string> lines;
  auto second = run_step(
      pod, paths, "run", "echo second >> " + shell_quote(mark), cwd_,
      [&](bool, const std::string& l) { lines.push_back(l); }, [](const StepOffsets&) {},
      [] { return false; });
  daemon_a.join();
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(*first, 7);
  EXPECT_EQ(*second, 7) << "the second launch reports the first step's status";
  EXPECT_EQ(lines, std::vector<std::string>{"first"});
  EXPECT_EQ(read_remote_file(mark), "ran\n") << "the step ran once; the second script never ran";
  EXPECT_EQ(read_remote_file(paths.pod_dir + "/run.sh").find("second"), std::string::npos);
  for (const auto& c : pod.commands) expect_parses(c);
}

// A step that stays quiet longer than the follower's quiet_s: the follower ends itself and burst
// follows again from its offsets, as often as needed, and the step's lines arrive once each, a
// line that was half written when the follower ended included.
TEST_F(RemoteCommands, AQuietStepIsFollowedAgainWithoutLosingOrRepeatingALine) {
  PodPaths paths{t_.path() + "/vol", t_.path() + "/pod"};
  fs::create_directories(paths.pod_dir);
  ShellSession pod(cwd_, home_);
  ASSERT_TRUE(install_env(pod, paths, {}).ok());
  std::vector<std::string> lines;
  auto status = run_step(
      pod, paths, "run", "echo a; sleep 3.5; printf par; sleep 1.6; echo tial; echo b; exit 3",
      cwd_, [&](bool, const std::string& line) { lines.push_back(line); },
      [](const StepOffsets&) {}, [] { return false; }, StepTimeouts{1, 10});
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(*status, 3);
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "partial", "b"}));
  // The follower counts its quiet 0.2 s rounds, which a loaded machine stretches (at load 24 on
  // two cores it ended itself once in 2.5 s of quiet): at least once, within 3.5 s of quiet.
  EXPECT_GE(pod.commands.size(), 2u) << "the follower ended itself and was followed again";
}

// 254 is the follower's own "quiet, follow me again": a step that exits 254 (or 255) still
// reports its own status, and burst does not follow it for ever.
TEST_F(RemoteCommands, AStepThatExits254Or255KeepsItsStatus) {
  for (int code : {254, 255}) {
    PodPaths paths{t_.path() + "/vol", t_.path() + "/pod" + std::to_string(code)};
    fs::create_directories(paths.pod_dir);
    ShellSession pod(cwd_, home_);
    ASSERT_TRUE(install_env(pod, paths, {}).ok());
    auto status = run_step(
        pod, paths, "run", "exit " + std::to_string(code), cwd_, [](bool, const std::string&) {},
        [](const StepOffsets&) {}, [] { return false; }, StepTimeouts{1, 10});
    ASSERT_TRUE(status.ok()) << status.error().message;
    EXPECT_EQ(*status, code);
  }
}

// A pod whose follower sends nothing at all (frozen, or a shell that never answers while sshd
// still answers keepalives): no bytes for silence_s is a timeout that says so, not a hang.
TEST(StepFollow, APodThatSendsNothingIsATimeoutNotAHang) {
  class SilentSession : public RemoteSession {
   public:
    Result<int> exec(const std::string&, const OutputSink&,
                     const std::function<bool()>& should_stop) override {
      while (!should_stop()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return make_error(ErrorCode::kInterrupted, "stopped");
    }
    Result<std::string> run_capture(const std::string&) override { return std::string(); }
    Status upload(const std::string&, const std::string&, uint32_t, int64_t) override {
      return Status::Ok();
    }
    Status write_file(const std::string&, const std::string&, uint32_t) override {
      return Status::Ok();
    }
    Status mkdirs(const std::string&, uint32_t) override { return Status::Ok(); }
    Result<RemoteFileInfo> stat(const std::string&) override {
      return make_error(ErrorCode::kNotFound, "no");
    }
    Status download(const std::string&, const std::string&) override { return Status::Ok(); }
  } pod;
  const auto start = std::chrono::steady_clock::now();
  auto status = run_step(
      pod, PodPaths{"/v", "/p"}, "run", "true", "/w", [](bool, const std::string&) {},
      [](const StepOffsets&) {}, [] { return false; }, StepTimeouts{1, 1});
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kTimeout);
  EXPECT_EQ(status.error().message,
            "no bytes from the pod for 1 s while following the run step (its follower stopped)");
  EXPECT_LT(took, 5.0);
}

// Pull and sync build their commands from patterns, the work dir and the sync paths; rendered
// here with hostile values, parsed, and run with stdin closed (each then ends at its first read).
TEST_F(RemoteCommands, PullAndSyncCommandsQuoteTheirPathsAndPatterns) {
  for (const auto& h : {hostile()[0], hostile()[1], hostile()[3], hostile()[6], hostile()[10]}) {
    const std::string workdir = t_.path() + "/code " + h;
    fs::create_directories(workdir);
    std::ofstream(workdir + "/out " + h + ".txt") << "result\n";
    ShellSession pod(cwd_, home_);
    Artefact a;
    a.remote = "out " + h + "*";
    a.local = t_.path() + "/local";
    (void)pull_artefacts(pod, {a}, workdir, t_.path() + "/vol");
    ScanResult scan;
    SyncTarget target{t_.path() + "/remote " + h, t_.path() + "/vol/manifest " + h};
    (void)sync_code(pod, scan, target, [](const SyncStats&) {});
    ASSERT_FALSE(pod.commands.empty());
    for (const auto& c : pod.commands) {
      expect_parses(c);
      (void)run_sh({"-c"}, c, cwd_, home_);  // stdin empty
    }
    EXPECT_FALSE(pwned(t_.path())) << h;
  }
}

// volume.mount is also checked where it enters: an absolute path without control characters.
TEST(RemoteCommandsSpec, AMountWithAControlCharacterOrRelativeIsRefused) {
  std::vector<SpecError> errors;
  auto bad = parse_spec("name: x\nrun: echo hi\nvolume:\n  mount: \"/ws\\ntouch PWNED\"\n",
                        "/w/job.yaml", &errors, provider_names());
  ASSERT_FALSE(bad.ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text, "/w/job.yaml:4:10: volume.mount: must not contain control characters");
  auto rel = parse_spec("name: x\nrun: echo hi\nvolume:\n  mount: \"-rf\"\n", "/w/job.yaml",
                        &errors, provider_names());
  ASSERT_FALSE(rel.ok());
  EXPECT_NE(errors.at(0).text.find("volume.mount: must be an absolute path"), std::string::npos);
  auto ok = parse_spec("name: x\nrun: echo hi\nvolume:\n  mount: \"/my ws/$(x)\"\n", "/w/job.yaml",
                       &errors, provider_names());
  ASSERT_TRUE(ok.ok()) << "other bytes are fine: they are quoted";
  EXPECT_EQ(ok->volume.mount, "/my ws/$(x)");
}

// The quoting helpers themselves, in the contexts the commands use them.
TEST_F(RemoteCommands, ShellQuoteAndGlobKeepEveryByteLiteral) {
  for (const auto& h : hostile()) {
    ShellRun q = run_sh({"-c"}, "printf '%s' " + shell_quote(h), cwd_, home_);
    EXPECT_EQ(q.out, h);
    std::ofstream(cwd_ + "/" + (h.find('/') == std::string::npos ? h : "slash")) << "x";
    ShellRun g =
        run_sh({"-c"}, "for f in " + shell_glob(h) + "; do printf '%s' \"$f\"; done", cwd_, home_);
    EXPECT_EQ(g.status, 0) << g.err;
    EXPECT_FALSE(pwned(t_.path())) << h;
  }
  ShellRun dash = run_sh({"-c"}, "printf '%s' " + shell_quote("-n"), cwd_, home_);
  EXPECT_EQ(dash.out, "-n");
}

}  // namespace
}  // namespace burst
