#include "fakes/shell_pod.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace burst {
namespace fs = std::filesystem;
namespace {

Error lost() { return make_error(ErrorCode::kConnection, "shell pod: connection lost"); }

// A child running `sh -c command` in its own process group, with pipes to its stdin and stdout
// and stderr to `err_fd` (a pipe for exec, a temp file for streams).
struct Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
};

Result<Child> spawn(const std::string& command, const std::vector<std::string>& env,
                    bool err_pipe) {
  int in[2], out[2], err[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    return make_error(ErrorCode::kInternal, "shell pod: pipe");
  if (err_pipe && pipe2(err, O_CLOEXEC) != 0)
    return make_error(ErrorCode::kInternal, "shell pod: pipe");
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return make_error(ErrorCode::kInternal, "shell pod: fork");
  if (pid == 0) {
    setpgid(0, 0);
    dup2(in[0], 0);
    dup2(out[1], 1);
    if (err_pipe) dup2(err[1], 2);
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    execve("/bin/sh", const_cast<char* const*>(argv), envp.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  if (err_pipe) close(err[1]);
  return Child{pid, in[1], out[0], err_pipe ? err[0] : -1};
}

int wait_status(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 255;
}

class ShellStream : public RemoteStream {
 public:
  ShellStream(ShellPodConnector& c, Child child, std::string err_path)
      : c_(c), child_(child), err_path_(std::move(err_path)) {}
  ~ShellStream() override {
    if (child_.pid > 0) {
      kill(-child_.pid, SIGKILL);
      wait_status(child_.pid);
    }
    close_fds();
    unlink(err_path_.c_str());
  }
  Status write(const char* data, size_t len) override {
    if (c_.broken) return lost();
    while (len > 0) {
      const ssize_t n = ::write(child_.in, data, len);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return make_error(ErrorCode::kConnection, "shell pod: stdin closed");
      data += n;
      len -= static_cast<size_t>(n);
    }
    return Status::Ok();
  }
  Status close_stdin() override {
    if (child_.in >= 0) close(child_.in);
    child_.in = -1;
    return Status::Ok();
  }
  Result<size_t> read(char* data, size_t len) override {
    if (c_.broken) return lost();
    while (true) {
      const ssize_t n = ::read(child_.out, data, len);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return make_error(ErrorCode::kConnection, "shell pod: read");
      return static_cast<size_t>(n);
    }
  }
  Result<int> finish(std::string* err) override {
    if (c_.broken) return lost();
    (void)close_stdin();
    char buf[4096];
    while (::read(child_.out, buf, sizeof buf) > 0) {
    }
    const int status = wait_status(child_.pid);
    child_.pid = -1;
    if (err) {
      std::ifstream f(err_path_);
      std::stringstream ss;
      ss << f.rdbuf();
      *err = ss.str();
    }
    return status;
  }

 private:
  void close_fds() {
    for (int* fd : {&child_.in, &child_.out})
      if (*fd >= 0) {
        close(*fd);
        *fd = -1;
      }
  }
  ShellPodConnector& c_;
  Child child_;
  std::string err_path_;
};

class ShellSession : public RemoteSession {
 public:
  explicit ShellSession(ShellPodConnector& c) : c_(c) {}

  Result<int> exec(const std::string& command, const OutputSink& sink,
                   const std::function<bool()>& should_stop) override {
    if (auto e = c_.check(command)) return *e;
    auto child = spawn(command, c_.environment(), true);
    if (!child.ok()) return child.error();
    close(child->in);
    pollfd fds[2] = {{child->out, POLLIN, 0}, {child->err, POLLIN, 0}};
    int open = 2;
    std::optional<Error> stopped;
    char buf[8192];
    while (open > 0) {
      if (c_.broken || aborted_) {
        stopped = aborted_ ? make_error(ErrorCode::kInterrupted, "aborted") : lost();
        break;
      }
      if (should_stop && should_stop()) {
        stopped = make_error(ErrorCode::kInterrupted, "interrupted");
        break;
      }
      if (poll(fds, 2, 100) < 0 && errno != EINTR) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
        const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
        if (n > 0) {
          const auto& to = i == 0 ? sink.out : sink.err;
          if (to) to(buf, static_cast<size_t>(n));
        } else {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open;
        }
      }
    }
    for (auto& f : fds)
      if (f.fd >= 0) close(f.fd);
    if (stopped) kill(-child->pid, SIGKILL);  // the command, not what it detached (setsid)
    const int status = wait_status(child->pid);
    if (stopped) return *stopped;
    return status;
  }

  Result<std::string> run_capture(const std::string& command) override {
    std::string out, err;
    auto st = exec(command,
                   {[&](const char* d, size_t n) { out.append(d, n); },
                    [&](const char* d, size_t n) { err.append(d, n); }},
                   nullptr);
    if (!st.ok()) return st.error();
    if (*st != 0)
      return make_error(ErrorCode::kRemoteFailed,
                        "exit " + std::to_string(*st) + ": " + err.substr(0, 4096));
    return out;
  }

  Status upload(const std::string& local_path, const std::string& remote_path, uint32_t mode,
                int64_t mtime) override {
    if (c_.broken) return lost();
    std::error_code ec;
    fs::copy_file(local_path, remote_path, fs::copy_options::overwrite_existing, ec);
    if (ec)
      return make_error(ErrorCode::kRemoteFailed, "upload " + remote_path + ": " + ec.message());
    chmod(remote_path.c_str(), mode);
    timeval tv[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
    utimes(remote_path.c_str(), tv);
    return Status::Ok();
  }
  Status write_file(const std::string& remote_path, const std::string& content,
                    uint32_t mode) override {
    if (c_.broken) return lost();
    const std::string tmp = remote_path + ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f << content;
      if (!f) return make_error(ErrorCode::kRemoteFailed, "write " + remote_path);
    }
    chmod(tmp.c_str(), mode);
    if (rename(tmp.c_str(), remote_path.c_str()) != 0)
      return make_error(ErrorCode::kRemoteFailed, "rename " + remote_path);
    return Status::Ok();
  }
  Status mkdirs(const std::string& remote_path, uint32_t mode) override {
    if (c_.broken) return lost();
    std::error_code ec;
    fs::create_directories(remote_path, ec);
    if (ec)
      return make_error(ErrorCode::kRemoteFailed, "mkdir " + remote_path + ": " + ec.message());
    chmod(remote_path.c_str(), mode);
    return Status::Ok();
  }
  Result<RemoteFileInfo> stat(const std::string& remote_path) override {
    if (c_.broken) return lost();
    struct stat sb {};
    if (::lstat(remote_path.c_str(), &sb) != 0)
      return make_error(ErrorCode::kNotFound, "no such file: " + remote_path);
    RemoteFileInfo info;
    info.path = remote_path;
    info.size = static_cast<uint64_t>(sb.st_size);
    info.mode = sb.st_mode & 07777;
    info.mtime = sb.st_mtime;
    info.is_dir = S_ISDIR(sb.st_mode);
    return info;
  }
  Status download(const std::string& remote_path, const std::string& local_path) override {
    if (c_.broken) return lost();
    std::error_code ec;
    fs::copy_file(remote_path, local_path, fs::copy_options::overwrite_existing, ec);
    if (ec) return make_error(ErrorCode::kRemoteFailed, "download " + remote_path);
    return Status::Ok();
  }
  Result<std::unique_ptr<RemoteStream>> open_stream(const std::string& command) override {
    if (auto e = c_.check(command)) return *e;
    char tmpl[] = "/tmp/burst-shellpod-err-XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) return make_error(ErrorCode::kInternal, "shell pod: mkstemp");
    // The command's stderr goes to the temp file, so it never blocks on a full pipe.
    auto child = spawn("exec 2>" + std::string(tmpl) + "; " + command, c_.environment(), false);
    close(fd);
    if (!child.ok()) return child.error();
    return std::unique_ptr<RemoteStream>(std::make_unique<ShellStream>(c_, *child, tmpl));
  }
  void abort() override { aborted_ = true; }

 private:
  ShellPodConnector& c_;
  std::atomic<bool> aborted_{false};
};

}  // namespace

ShellPodConnector::ShellPodConnector(std::string root) : root_(std::move(root)) {
  fs::create_directories(root_ + "/home");
  fs::create_directories(root_ + "/volume");
}

Result<std::unique_ptr<RemoteSession>> ShellPodConnector::connect(SshTarget& target) {
  ++connects_;
  if (refuse || broken) return make_error(ErrorCode::kConnection, "shell pod: connection refused");
  if (target.pinned_host_key.empty()) target.pinned_host_key = "SHA256:shellpod";
  return std::unique_ptr<RemoteSession>(std::make_unique<ShellSession>(*this));
}

std::optional<Error> ShellPodConnector::check(const std::string& command) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    commands_.push_back(command);
  }
  if (broken) return lost();
  if (fail_command) return fail_command(command);
  return std::nullopt;
}

std::vector<std::string> ShellPodConnector::commands() const {
  std::lock_guard<std::mutex> lock(mu_);
  return commands_;
}

std::vector<std::string> ShellPodConnector::environment() const {
  const char* path = std::getenv("PATH");
  return {"HOME=" + root_ + "/home", "BURST_VOLUME=" + root_ + "/volume",
          std::string("PATH=") + (path ? path : "/usr/bin:/bin"), "LC_ALL=C"};
}

}  // namespace burst
