// Runs the real `burst` binary with every path in a temp dir, and inspects the process table for
// pods that outlived their job.
#pragma once

#include <sys/types.h>

#include <cstdint>
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
  // Like wait(), but also SIGKILLs the process as soon as its peak RSS passes `kill_above_kib`
  // (a test of a memory bound must not take the machine down with it). Returns as wait().
  int wait_bounded(int timeout_s, long kill_above_kib);
  // The largest peak RSS seen: /proc/<pid>/status VmHWM while it ran (polled by the waits), and
  // the kernel's ru_maxrss (wait4) once it exited. In KiB; 0 if never measured.
  long peak_rss_kib() const { return peak_rss_kib_; }
  bool killed_for_rss() const { return killed_for_rss_; }
  // Polls stdout until it contains `needle`; false after `timeout_s` or if the process exited.
  bool wait_for_stdout(const std::string& needle, int timeout_s = 60);
  std::string out() const;
  std::string err() const;

 private:
  bool reap(bool block);  // true once exited; records status_ and ru_maxrss
  void sample_rss();

  pid_t pid_ = -1;
  int status_ = -1;
  long peak_rss_kib_ = 0;
  bool killed_for_rss_ = false;
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

// Writes an executable hostile-pod shim to `path` for BURST_TEST_POD_SHIM (docs/testing.md):
// sshd runs it for every command burst sends, which arrives in $SSH_ORIGINAL_COMMAND ($c in
// `cases`). SFTP is passed to the system's sftp-server; `cases` (POSIX sh) runs next and may answer
// in the pod's place and exit; otherwise the command runs as usual under /bin/sh. `cases` may use
// the predicates is_probe, is_sync, is_pull, is_step <name> (a supervised step's follow command:
// setup, run, upload) and `hang` (silence for ever, the connection held open), and $H, the shim's
// directory (`mark NAME` touches $H/NAME, so a test can see which branch ran).
void write_pod_shim(const std::string& path, const std::string& cases);

// Pieces of a hostile answer to burst's pull command (src/sync/artefact_pull.cpp): a listing
// record "<pattern index>\t<size>\t<mtime>\t<mode>\t<name>\0" (mtime 4102444800, the year 2100:
// newer than any job's first step, so the pull takes the file as this job's), one ustar entry
// (header and content padded to 512 bytes; `mode` as 7 octal digits), the two zero blocks that end
// an archive, and a hash record "<sha256>  <name>\0".
std::string pull_listing_record(int idx, uint64_t size, const std::string& mode,
                                const std::string& name);
std::string ustar_entry(const std::string& name, const std::string& content,
                        const char* mode = "0000644");
std::string ustar_end();
std::string pull_hash_record(const std::string& sha, const std::string& name);
std::string sha256_hex(const std::string& data);

std::string read_file(const std::string& path);
// Every regular file under `dir`, recursively.
std::vector<std::string> files_under(const std::string& dir);

}  // namespace burst::testing
