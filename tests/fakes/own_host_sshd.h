// One of "your own hosts" for tests: a real OpenSSH sshd on 127.0.0.1 (a free port), accepting
// one key, with a fake `nvidia-smi` first on the session's PATH and HOME in the host's own dir,
// so the ssh provider (providers/ssh/) probes, locks and runs jobs on it as on a real GPU host.
// stop() kills the listener and every session (the host disappears); start() brings it back on
// the same port with the same host key.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "burst/ssh_keys.h"
#include "local/local_provider.h"
#include "util/process.h"

namespace burst {

class OwnHostSshd {
 public:
  // `dir` is the host's own dir (created); `client_key` the private key burst logs in with;
  // `gpus` what nvidia-smi prints, one "<name>, <MiB> MiB" line each.
  OwnHostSshd(std::string dir, const std::string& client_key, std::string gpus)
      : dir_(std::move(dir)) {
    namespace fs = std::filesystem;
    fs::create_directories(dir_ + "/bin");
    fs::create_directories(dir_ + "/home");
    auto pub = ensure_keypair(client_key);
    EXPECT_TRUE(pub.ok());
    auto host = ensure_keypair(dir_ + "/host_ed25519");
    EXPECT_TRUE(host.ok());
    std::ofstream(dir_ + "/authorized_keys") << (pub.ok() ? *pub : "") << "\n";
    ::chmod((dir_ + "/authorized_keys").c_str(), 0600);
    set_gpus(std::move(gpus));
    port_ = free_port();
  }
  ~OwnHostSshd() { stop(); }

  // What the fake nvidia-smi prints from now on (it checks its arguments as nvidia-smi would).
  void set_gpus(std::string gpus) {
    const std::string path = dir_ + "/bin/nvidia-smi";
    std::ofstream(path) << "#!/bin/sh\n"
                        << "[ \"$1 $2\" = '--query-gpu=name,memory.total --format=csv,noheader' ]"
                           " || { echo \"fake nvidia-smi: unexpected: $*\" >&2; exit 2; }\n"
                        << "cat <<'GPUS'\n"
                        << gpus << "GPUS\n";
    ::chmod(path.c_str(), 0755);
  }

  bool start() {
    std::ostringstream conf;
    conf << "ListenAddress 127.0.0.1\nPort " << port_ << "\nHostKey " << dir_
         << "/host_ed25519\nPidFile " << dir_ << "/sshd.pid\nAuthorizedKeysFile " << dir_
         << "/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
         << "PubkeyAuthentication yes\nUsePAM no\nStrictModes no\nPermitRootLogin yes\n"
         << "PrintMotd no\nClientAliveInterval 5\nSubsystem sftp internal-sftp\n"
         << "SetEnv \"PATH=" << dir_ << "/bin:/usr/local/bin:/usr/bin:/bin\" \"HOME=" << dir_
         << "/home\"\n";
    std::ofstream(dir_ + "/sshd_config") << conf.str();
    std::error_code ec;
    std::filesystem::create_directories("/run/sshd", ec);
    std::filesystem::remove(dir_ + "/sshd.pid", ec);
    auto rc = run_and_wait({find_sshd(), "-f", dir_ + "/sshd_config", "-E", dir_ + "/sshd.log"},
                           {{"PATH", "/usr/bin:/bin"}}, dir_ + "/sshd.log");
    if (!rc.ok() || *rc != 0) return false;
    for (int i = 0; i < 200; ++i) {
      if (process_alive(listener())) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // The host disappears: its listener and every session it serves die at once.
  void stop() {
    const int pid = listener();
    if (pid <= 0) return;
    std::vector<int> all = with_descendants({pid}, list_processes());
    (void)terminate_all(all, 500);
    std::error_code ec;
    std::filesystem::remove(dir_ + "/sshd.pid", ec);
  }

  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  std::string home() const { return dir_ + "/home"; }

 private:
  int listener() const {
    std::ifstream f(dir_ + "/sshd.pid");
    int pid = 0;
    f >> pid;
    return pid;
  }

  static int free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      port = ntohs(addr.sin_port);
    close(fd);
    return port;
  }

  std::string dir_;
  int port_ = 0;
};

}  // namespace burst
