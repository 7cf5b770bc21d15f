// Runs the real `burst` binary with every path in a temp dir, and inspects the process table for
// pods that outlived their job.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace burst::testing {

// A temp dir holding burst's state and config dirs plus a work dir for specs and code.
class BurstHome {
 public:
  BurstHome();
  ~BurstHome();  // kills any pod processes this home started, then removes the dir

  const std::string& root() const { return root_; }
  std::string state() const { return root_ + "/state"; }
  std::string work() const { return root_ + "/work"; }
  // Writes `content` to work()/rel (creating dirs) and returns the absolute path.
  std::string write(const std::string& rel, const std::string& content) const;
  std::map<std::string, std::string> env() const;

 private:
  std::string root_;
};

// Starts `argv` (argv[0] a path) with exactly `env`, stdin from /dev/null, stdout and stderr to
// the given files (the same file when equal: one descriptor, so neither overwrites the other).
// Returns the pid, or -1 if it could not start.
pid_t spawn_logged(const std::vector<std::string>& argv,
                   const std::map<std::string, std::string>& env, const std::string& out_path,
                   const std::string& err_path);

class BurstProcess {
 public:
  BurstProcess(const BurstHome& home, const std::vector<std::string>& args,
               const std::map<std::string, std::string>& extra_env = {});
  ~BurstProcess();

  pid_t pid() const { return pid_; }
  // Waits for exit; returns the exit code (128+signal if killed), or -1 after `timeout_s`.
  int wait(int timeout_s = 120);
  // Polls stdout until it contains `needle`; false after `timeout_s` or if the process exited.
  bool wait_for_stdout(const std::string& needle, int timeout_s = 60);
  std::string out() const;
  std::string err() const;

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string out_path_, err_path_;
};

// Runs burst to completion; returns exit code, fills out/err.
int run_burst(const BurstHome& home, const std::vector<std::string>& args, std::string* out,
              std::string* err, const std::map<std::string, std::string>& extra_env = {});

// Pod ids ("local-...") named in burst's output ("... pod local-xxxx created").
std::vector<std::string> pod_ids_in(const std::string& output);

// Live processes of a local pod (its sshd, sessions and commands), from the process table.
std::vector<int> pod_processes(const std::string& pod_id);

// Pids of the pod's sshd processes other than the listener: the per-connection sessions.
std::vector<int> pod_session_sshds(const BurstHome& home, const std::string& pod_id);

std::string read_file(const std::string& path);
// Every regular file under `dir`, recursively.
std::vector<std::string> files_under(const std::string& dir);

}  // namespace burst::testing
