#include "job/local_step.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "job/remote_steps.h"

extern char** environ;

namespace burst {
namespace fs = std::filesystem;

namespace {

// "out" for "out/render.wav" and "out/*.wav"; "" for "render.wav" or a $BURST_VOLUME path.
std::string remote_dir_of(const std::string& pattern) {
  if (pattern.rfind("$BURST_VOLUME", 0) == 0) return "";
  const size_t glob = pattern.find_first_of("*?[");
  const std::string literal = pattern.substr(0, glob);
  const size_t slash = literal.rfind('/');
  return slash == std::string::npos ? "" : literal.substr(0, slash);
}

}  // namespace

Status make_local_view(const std::string& view_dir, const CodeSpec& code,
                       const std::vector<Artefact>& artefacts) {
  const std::string& code_dir = code.dir;
  std::error_code ec;
  fs::remove_all(view_dir, ec);
  fs::create_directories(view_dir, ec);
  if (ec)
    return make_error(ErrorCode::kInternal, "cannot create " + view_dir + ": " + ec.message());
  fs::permissions(view_dir, fs::perms::owner_all, ec);
  if (!code_dir.empty()) {
    for (const auto& entry : fs::directory_iterator(code_dir, ec)) {
      fs::create_symlink(entry.path(), fs::path(view_dir) / entry.path().filename(), ec);
      if (ec) return make_error(ErrorCode::kInternal, "cannot link " + entry.path().string());
    }
  }
  for (const CodeAdd& add : code.add) {  // its first part is not in code.dir (spec_code.cpp)
    const fs::path link = fs::path(view_dir) / add.to;
    fs::create_directories(link.parent_path(), ec);
    fs::create_symlink(add.from, link, ec);
    if (ec) return make_error(ErrorCode::kInternal, "cannot link " + link.string());
  }
  for (const Artefact& a : artefacts) {
    const std::string dir = remote_dir_of(a.remote);
    if (dir.empty()) continue;
    const fs::path link = fs::path(view_dir) / dir;
    if (fs::exists(fs::symlink_status(link))) continue;  // the code dir has it, or linked already
    fs::create_directories(link.parent_path(), ec);
    fs::create_directory_symlink(fs::absolute(a.local), link, ec);
    if (ec) return make_error(ErrorCode::kInternal, "cannot link " + link.string());
  }
  return Status::Ok();
}

Result<int> run_local_step(const std::string& script, const std::string& script_path,
                           const std::string& workdir,
                           const std::map<std::string, std::string>& env,
                           const std::function<void(bool, const std::string&)>& on_line,
                           const std::function<bool()>& should_stop) {
  {
    std::ofstream f(script_path, std::ios::trunc);
    f << script << "\n";
    if (!f) return make_error(ErrorCode::kInternal, "cannot write " + script_path);
  }
  ::chmod(script_path.c_str(), 0700);
  std::map<std::string, std::string> all;
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) all[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  for (const auto& [k, v] : env) all[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : all) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  const std::string shell = ::access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh";
  std::string a0 = shell, a1 = "-e", a2 = script_path;
  char* argv[] = {a0.data(), a1.data(), a2.data(), nullptr};

  int out[2], err[2];
  if (::pipe(out) != 0 || ::pipe(err) != 0)
    return make_error(ErrorCode::kInternal, std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0)
    return make_error(ErrorCode::kInternal, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::close(out[0]);
    ::close(err[0]);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (::chdir(workdir.c_str()) != 0) _exit(126);
    ::execve(argv[0], argv, envp.data());
    _exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out[1]);
  ::close(err[1]);
  LineSplitter so([&](const std::string& l) { on_line(false, l); });
  LineSplitter se([&](const std::string& l) { on_line(true, l); });
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  bool stopped = false;
  char buf[4096];
  while (open_fds > 0) {
    if (!stopped && should_stop()) {
      stopped = true;
      ::kill(-pid, SIGTERM);
    }
    if (::poll(fds, 2, 200) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? so : se).feed(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  so.flush();
  se.flush();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (stopped) ::kill(-pid, SIGKILL);  // anything it left behind in its group
  if (stopped) return make_error(ErrorCode::kInterrupted, "interrupted");
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace burst
