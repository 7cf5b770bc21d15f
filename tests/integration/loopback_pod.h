// A real OpenSSH sshd pod from the local provider, with a connected libssh session, for the sync
// and pull tests. Its volume is a plain directory here, so tests look at "remote" files directly.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "burst/remote.h"
#include "burst/ssh_keys.h"
#include "local/local_provider.h"

namespace burst {

class LoopbackPodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_sshd().empty())
      GTEST_SKIP() << "SKIPPED: no sshd installed (scripts/setup installs openssh-server)";
    std::string tmpl = (std::filesystem::temp_directory_path() / "burst-sync-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    auto pub = ensure_keypair(dir_ + "/id_ed25519");
    ASSERT_TRUE(pub.ok()) << pub.error().message;
    provider_ = make_local_provider({dir_ + "/cloud", "", 0, 0}, clock_);
    ASSERT_TRUE(provider_->ensure_volume("vol", 1, "").ok());
    volume_ = dir_ + "/cloud/volumes/vol";
    PodRequest req;
    req.name = "burst-synctest-gpu";
    req.volume_id = "vol";
    req.ssh_public_key = *pub;
    auto pod = provider_->create_pod(req);
    ASSERT_TRUE(pod.ok()) << pod.error().message;
    pod_ = *pod;
    target_ = {pod_.ssh.host, pod_.ssh.port, pod_.ssh.user, dir_ + "/id_ed25519", ""};
    reconnect();
  }
  void TearDown() override {
    session_.reset();
    if (provider_ && !pod_.id.empty()) {
      EXPECT_TRUE(provider_->delete_pod(pod_.id).ok());
    }
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  void reconnect() {
    session_.reset();
    auto s = connect_with_retry(*connector_, target_, clock_,
                                clock_.mono_now() + std::chrono::seconds(30), {});
    ASSERT_TRUE(s.ok()) << s.error().message;
    session_ = std::move(*s);
  }

  // The pid of the sshd process serving this session: killing it drops the connection.
  pid_t session_sshd_pid() {
    auto out = session_->run_capture("echo $PPID");
    EXPECT_TRUE(out.ok());
    return out.ok() ? static_cast<pid_t>(std::stol(*out)) : 0;
  }

  SystemClock clock_;
  std::string dir_, volume_;
  std::unique_ptr<Provider> provider_;
  std::unique_ptr<RemoteConnector> connector_ = make_libssh_connector();
  Pod pod_;
  SshTarget target_;
  std::unique_ptr<RemoteSession> session_;
};

}  // namespace burst
