#include "e2e/burst_harness.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "burst/config.h"
#include "crypto/sha256.h"
#include "local/local_provider.h"
#include "util/process.h"

namespace burst::testing {
namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) out.push_back(it->path().string());
  return out;
}

BurstHome::BurstHome() {
  std::string tmpl = (fs::temp_directory_path() / "burst-e2e-XXXXXX").string();
  root_ = mkdtemp(tmpl.data());
  fs::create_directories(work());
}

BurstHome::~BurstHome() {
  // A failed test must not leave sshds behind: stop whatever pods this home still has.
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(state() + "/local/pods", ec)) {
    auto pids = pod_processes(e.path().filename().string());
    terminate_all(pids, 1000);
  }
  fs::remove_all(root_, ec);
}

std::string BurstHome::write(const std::string& rel, const std::string& content) const {
  fs::path p = fs::path(work()) / rel;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << content;
  return p.string();
}

std::map<std::string, std::string> BurstHome::env() const {
  auto env = environment_map();
  env["BURST_STATE_DIR"] = state();
  env["BURST_CONFIG_DIR"] = root_ + "/config";
  env.erase("XDG_STATE_HOME");
  env.erase("XDG_CONFIG_HOME");
  // No registry lookups for the image's size (app/image_size_lookup.h): tests stay offline.
  env["BURST_IMAGE_REGISTRY"] = "off";
  // A developer's real keys must never reach a test: tests that want a cloud pass a key for
  // their emulator explicitly.
  for (const char* key : {"RUNPOD_API_KEY", "LAMBDA_API_KEY", "VAST_API_KEY"}) env.erase(key);
  return env;
}

pid_t spawn_logged(const std::vector<std::string>& argv,
                   const std::map<std::string, std::string>& env, const std::string& out_path,
                   const std::string& err_path) {
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> cenv;
  for (auto& e : env_strings) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (err_path == out_path)
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  else
    posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  if (posix_spawn(&pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

BurstProcess::BurstProcess(const BurstHome& home, const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& extra_env) {
  static int counter = 0;
  std::string base = home.root() + "/proc" + std::to_string(++counter);
  out_path_ = base + ".out";
  err_path_ = base + ".err";
  std::vector<std::string> argv = {BURST_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  auto env = home.env();
  for (const auto& [k, v] : extra_env) env[k] = v;
  pid_ = spawn_logged(argv, env, out_path_, err_path_);
}

BurstProcess::~BurstProcess() {
  if (status_ == -1 && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

bool BurstProcess::reap(bool block) {
  if (status_ != -1) return true;
  int st = 0;
  rusage ru{};
  if (wait4(pid_, &st, block ? 0 : WNOHANG, &ru) != pid_) return false;
  status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  peak_rss_kib_ = std::max(peak_rss_kib_, static_cast<long>(ru.ru_maxrss));
  return true;
}

void BurstProcess::sample_rss() {
  std::string status = read_file("/proc/" + std::to_string(pid_) + "/status");
  size_t at = status.find("VmHWM:");
  if (at != std::string::npos)
    peak_rss_kib_ = std::max(peak_rss_kib_, std::atol(status.c_str() + at + 6));
}

int BurstProcess::wait(int timeout_s) { return wait_bounded(timeout_s, 0); }

int BurstProcess::wait_bounded(int timeout_s, long kill_above_kib) {
  for (int i = 0; i < timeout_s * 50; ++i) {
    if (reap(false)) return status_;
    sample_rss();
    if (kill_above_kib > 0 && peak_rss_kib_ > kill_above_kib && !killed_for_rss_) {
      killed_for_rss_ = true;
      kill(pid_, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return reap(false) ? status_ : -1;
}

bool BurstProcess::wait_for_stdout(const std::string& needle, int timeout_s) {
  for (int i = 0; i < timeout_s * 20; ++i) {
    if (out().find(needle) != std::string::npos) return true;
    if (reap(false)) return out().find(needle) != std::string::npos;
    sample_rss();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string BurstProcess::out() const { return read_file(out_path_); }
std::string BurstProcess::err() const { return read_file(err_path_); }

int run_burst(const BurstHome& home, const std::vector<std::string>& args, std::string* out,
              std::string* err, const std::map<std::string, std::string>& extra_env) {
  BurstProcess p(home, args, extra_env);
  int rc = p.wait(300);
  if (out) *out = p.out();
  if (err) *err = p.err();
  return rc;
}

std::vector<std::string> pod_ids_in(const std::string& output) {
  std::vector<std::string> ids;
  std::regex re("pod (local-[0-9a-f]+) created");
  for (std::sregex_iterator it(output.begin(), output.end(), re), end; it != end; ++it)
    ids.push_back((*it)[1]);
  return ids;
}

void write_pod_shim(const std::string& path, const std::string& cases) {
  const std::string dir = fs::path(path).parent_path().string();
  std::ofstream f(path, std::ios::trunc);
  f << "#!/bin/sh\n"
       "# TEST ONLY: a hostile pod's shell (docs/testing.md). sshd runs this for every command.\n"
       "c=$SSH_ORIGINAL_COMMAND\n"
       "if [ \"$c\" = internal-sftp ]; then\n"
       "  for s in /usr/lib/openssh/sftp-server /usr/libexec/openssh/sftp-server \\\n"
       "      /usr/libexec/sftp-server /usr/lib/ssh/sftp-server; do\n"
       "    [ -x \"$s\" ] && exec \"$s\"\n"
       "  done\n"
       "  echo 'pod shim: no sftp-server' >&2; exit 1\n"
       "fi\n"
       "H='"
    << dir
    << "'\n"
       "mark() { : > \"$H/$1\"; }\n"
       "hang() { exec sleep 100000; }\n"
       "is_probe() { case $c in *'BURST_VOLUME:-'*'printf '*) return 0;; esac; return 1; }\n"
       "is_sync() { case $c in *'echo T1'*'tar -b 256'*) return 0;; esac; return 1; }\n"
       "is_pull() { case $c in *'tar -chPf'*) return 0;; esac; return 1; }\n"
       "is_step() { case $c in \"b='\"*\"/$1'; printf\"*) return 0;; esac; return 1; }\n"
    << cases << "\nexec /bin/sh -c \"$c\"\n";
  f.close();
  ::chmod(path.c_str(), 0755);
}

std::string sha256_hex(const std::string& data) {
  Sha256 h;
  h.update(data.data(), data.size());
  return h.hex_digest();
}

std::string ustar_entry(const std::string& name, const std::string& content, const char* mode) {
  std::string h(512, '\0');
  auto put = [&](size_t at, const std::string& s) {
    h.replace(at, std::min<size_t>(s.size(), 100), s.substr(0, 100));
  };
  char num[32];
  put(0, name);  // a name over 99 bytes is cut: the caller keeps names short
  put(100, mode);
  put(108, "0000000");
  put(116, "0000000");
  std::snprintf(num, sizeof num, "%011llo", static_cast<unsigned long long>(content.size()));
  put(124, num);
  put(136, "14712345670");
  put(148, "        ");
  h[156] = '0';
  put(257, std::string("ustar\0", 6) + "00");
  unsigned sum = 0;
  for (unsigned char ch : h) sum += ch;
  std::snprintf(num, sizeof num, "%06o", sum);
  h.replace(148, 7, std::string(num, 6) + '\0');
  std::string padded = content;
  padded.resize((content.size() + 511) / 512 * 512, '\0');
  return h + padded;
}

std::string ustar_end() { return std::string(1024, '\0'); }

std::string pull_listing_record(int idx, uint64_t size, const std::string& mode,
                                const std::string& name) {
  return std::to_string(idx) + "\t" + std::to_string(size) + "\t4102444800\t" + mode + "\t" + name +
         '\0';
}

std::string pull_hash_record(const std::string& sha, const std::string& name) {
  return sha + "  " + name + '\0';
}

std::vector<int> pod_processes(const std::string& pod_id) { return local_pod_processes(pod_id); }

std::vector<int> pod_session_sshds(const BurstHome& home, const std::string& pod_id) {
  int listener = std::atoi(read_file(home.state() + "/local/pods/" + pod_id + "/sshd.pid").c_str());
  std::vector<int> out;
  for (int pid : pod_processes(pod_id)) {
    std::string comm = read_file("/proc/" + std::to_string(pid) + "/comm");
    if (pid != listener && comm.rfind("sshd", 0) == 0) out.push_back(pid);
  }
  return out;
}

}  // namespace burst::testing
