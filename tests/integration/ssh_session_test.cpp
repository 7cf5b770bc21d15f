// The libssh transport against a real OpenSSH sshd (a local-cloud pod): exec with streamed
// output and exit status, SFTP with modes and mtimes, host key pinning, connect retries, and the
// deadlines that do not depend on the pod: abort() from another thread and the no-progress
// timeout against a command that sends nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "burst/remote.h"
#include "burst/ssh_keys.h"
#include "fakes/fake_clock.h"
#include "local/local_provider.h"

namespace burst {
namespace {
namespace fs = std::filesystem;

class SshSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_sshd().empty())
      GTEST_SKIP() << "SKIPPED: no sshd installed (scripts/setup installs openssh-server)";
    std::string tmpl = (fs::temp_directory_path() / "burst-ssh-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    key_ = dir_ + "/id_ed25519";
    auto pub = ensure_keypair(key_);
    ASSERT_TRUE(pub.ok()) << pub.error().message;
    provider_ = make_local_provider({dir_ + "/cloud", "", 0, 0}, clock_);
    ASSERT_TRUE(provider_->ensure_volume("vol", 1, "").ok());
    PodRequest req;
    req.name = "burst-test-gpu";
    req.volume_id = "vol";
    req.ssh_public_key = *pub;
    auto pod = provider_->create_pod(req);
    ASSERT_TRUE(pod.ok()) << pod.error().message;
    pod_ = *pod;
    target_ = {pod_.ssh.host, pod_.ssh.port, pod_.ssh.user, key_, ""};
    auto s = connect_with_retry(*connector_, target_, clock_,
                                clock_.mono_now() + std::chrono::seconds(30), {});
    ASSERT_TRUE(s.ok()) << s.error().message;
    session_ = std::move(*s);
  }
  void TearDown() override {
    session_.reset();
    if (provider_ && !pod_.id.empty()) {
      EXPECT_TRUE(provider_->delete_pod(pod_.id).ok());
    }
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  SystemClock clock_;
  std::string dir_, key_;
  std::unique_ptr<Provider> provider_;
  std::unique_ptr<RemoteConnector> connector_ = make_libssh_connector();
  Pod pod_;
  SshTarget target_;
  std::unique_ptr<RemoteSession> session_;
};

TEST_F(SshSessionTest, ExecStreamsStdoutAndStderrAndReturnsTheExitStatus) {
  std::string out, err;
  OutputSink sink{[&](const char* d, size_t n) { out.append(d, n); },
                  [&](const char* d, size_t n) { err.append(d, n); }};
  auto rc = session_->exec("echo one; echo two >&2; echo \"$BURST_VOLUME\"; exit 7", sink, {});
  ASSERT_TRUE(rc.ok()) << rc.error().message;
  EXPECT_EQ(*rc, 7);
  EXPECT_EQ(out, "one\n" + dir_ + "/cloud/volumes/vol\n");
  EXPECT_EQ(err, "two\n");
}

TEST_F(SshSessionTest, ExecStopsWhenAskedAndReportsInterrupted) {
  int polls = 0;
  auto rc = session_->exec("sleep 30", {}, [&] { return ++polls > 3; });
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.error().code, ErrorCode::kInterrupted);
}

TEST_F(SshSessionTest, RunCaptureFailsWithTheCommandsStderr) {
  auto out = session_->run_capture("echo nope >&2; exit 2");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::kRemoteFailed);
  EXPECT_NE(out.error().message.find("command exited 2: nope"), std::string::npos)
      << out.error().message;
}

// The workers of a wide job make the same directories on one shared volume at once (the done
// records' dir): each session's mkdirs must succeed whoever made a level first. Four sessions,
// ten rounds of one 24-level path each: without the re-check the stat-then-mkdir race is lost
// almost every round.
TEST_F(SshSessionTest, MkdirsOfOnePathFromFourSessionsAtOnceAllSucceed) {
  std::vector<std::unique_ptr<RemoteSession>> sessions;
  for (int i = 0; i < 4; ++i) {
    auto s = connect_with_retry(*connector_, target_, clock_,
                                clock_.mono_now() + std::chrono::seconds(30), {});
    ASSERT_TRUE(s.ok()) << s.error().message;
    sessions.push_back(std::move(*s));
  }
  for (int round = 0; round < 10; ++round) {
    std::string path = dir_ + "/cloud/volumes/vol/race" + std::to_string(round);
    for (int level = 0; level < 24; ++level) path += "/d" + std::to_string(level);
    std::vector<Status> results(sessions.size(), Status::Ok());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < sessions.size(); ++i)
      threads.emplace_back([&, i] { results[i] = sessions[i]->mkdirs(path, 0755); });
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < results.size(); ++i)
      EXPECT_TRUE(results[i].ok())
          << "round " << round << ", session " << i << ": " << results[i].error().message;
    EXPECT_TRUE(fs::is_directory(path));
  }
}

TEST_F(SshSessionTest, UploadAndDownloadKeepModeMtimeAndContent) {
  const std::string local = dir_ + "/script.sh";
  std::ofstream(local) << "#!/bin/sh\necho hi\n";
  const std::string remote_dir = dir_ + "/cloud/volumes/vol/code/sub";
  ASSERT_TRUE(session_->mkdirs(remote_dir, 0755).ok());
  ASSERT_TRUE(session_->upload(local, remote_dir + "/script.sh", 0750, 1700000000).ok());
  auto info = session_->stat(remote_dir + "/script.sh");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->mode, 0750u);
  EXPECT_EQ(info->mtime, 1700000000);
  EXPECT_EQ(info->size, 18u);
  EXPECT_FALSE(fs::exists(remote_dir + "/script.sh.burst-part")) << "temp name renamed away";

  const std::string back = dir_ + "/back.sh";
  ASSERT_TRUE(session_->download(remote_dir + "/script.sh", back).ok());
  struct stat sb {};
  ASSERT_EQ(::stat(back.c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 07777, 0750u);
  EXPECT_EQ(sb.st_mtime, 1700000000);
  std::ifstream f(back);
  std::string content((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "#!/bin/sh\necho hi\n");

  auto missing = session_->stat(remote_dir + "/absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST_F(SshSessionTest, WriteFileMakesTheModeExactDespiteTheUmask) {
  const std::string path = dir_ + "/cloud/volumes/vol/env.sh";
  ASSERT_TRUE(session_->write_file(path, "export A=1\n", 0600).ok());
  struct stat sb {};
  ASSERT_EQ(::stat(path.c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 07777, 0600u);
}

TEST_F(SshSessionTest, HostKeyIsPinnedAndAChangedKeyIsRefused) {
  EXPECT_EQ(target_.pinned_host_key.rfind("SHA256:", 0), 0u) << target_.pinned_host_key;
  SshTarget again = target_;
  EXPECT_TRUE(connector_->connect(again).ok()) << "same key: accepted";
  SshTarget forged = target_;
  forged.pinned_host_key = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  auto refused = connector_->connect(forged);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalid);
  EXPECT_NE(refused.error().message.find("host key changed"), std::string::npos);
}

TEST_F(SshSessionTest, AWrongKeyIsRefusedAsAuth) {
  SshTarget other = target_;
  other.private_key_path = dir_ + "/other_key";
  ASSERT_TRUE(ensure_keypair(other.private_key_path).ok());
  auto s = connector_->connect(other);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kAuth);
}

using Steady = std::chrono::steady_clock;

double ssh_seconds_since(Steady::time_point t) {
  return std::chrono::duration<double>(Steady::now() - t).count();
}

// Calls abort() on `session` from another thread after `after`.
class AbortLater {
 public:
  AbortLater(RemoteSession& session, std::chrono::milliseconds after)
      : t_([&session, after] {
          std::this_thread::sleep_for(after);
          session.abort();
        }) {}
  ~AbortLater() { t_.join(); }

 private:
  std::thread t_;
};

TEST_F(SshSessionTest, AbortFromAnotherThreadBreaksASilentCommandAndEveryLaterCall) {
  const auto start = Steady::now();
  Result<std::string> out = std::string();
  {
    AbortLater later(*session_, std::chrono::milliseconds(300));
    out = session_->run_capture("sleep 30");  // sends nothing, exits long after the test
  }
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::kInterrupted) << out.error().message;
  EXPECT_NE(out.error().message.find("aborted"), std::string::npos) << out.error().message;
  EXPECT_LT(ssh_seconds_since(start), 1.5);
  // The session is broken for good: later calls refuse at once instead of waiting on the pod.
  const auto again = Steady::now();
  auto later_call = session_->run_capture("echo hi");
  ASSERT_FALSE(later_call.ok());
  EXPECT_EQ(later_call.error().code, ErrorCode::kInterrupted);
  auto st = session_->stat("/");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kInterrupted);
  EXPECT_LT(ssh_seconds_since(again), 0.5);
}

TEST_F(SshSessionTest, AbortBreaksAStreamReadBlockedOnAPodThatSendsNothing) {
  auto stream = session_->open_stream("cat");  // waits on stdin for ever, prints nothing
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  const auto start = Steady::now();
  char buf[64];
  Result<size_t> n = size_t{0};
  {
    AbortLater later(*session_, std::chrono::milliseconds(300));
    n = (*stream)->read(buf, sizeof buf);
  }
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, ErrorCode::kInterrupted) << n.error().message;
  EXPECT_LT(ssh_seconds_since(start), 1.5);
  stream->reset();
}

TEST_F(SshSessionTest, ACommandThatSendsNothingTimesOutAfterTheNoProgressTimeout) {
  target_.no_progress_timeout_s = 2;
  auto s = connector_->connect(target_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto start = Steady::now();
  auto out = (*s)->run_capture("sleep 30");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::kTimeout) << out.error().message;
  EXPECT_NE(out.error().message.find("no bytes from the pod for 2 s"), std::string::npos)
      << out.error().message;
  EXPECT_GE(ssh_seconds_since(start), 1.9);
  EXPECT_LT(ssh_seconds_since(start), 4.0);
}

TEST_F(SshSessionTest, AStreamThatSendsNothingTimesOutButOneThatTalksDoesNot) {
  target_.no_progress_timeout_s = 2;
  auto s = connector_->connect(target_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  // Slow but steady (a byte a second) is progress: 4 s, longer than the timeout, is fine.
  auto talker = (*s)->open_stream("for i in 1 2 3 4; do printf x; sleep 1; done");
  ASSERT_TRUE(talker.ok()) << talker.error().message;
  std::string err;
  auto rc = (*talker)->finish(&err);
  ASSERT_TRUE(rc.ok()) << rc.error().message;
  EXPECT_EQ(*rc, 0);
  talker->reset();
  auto silent = (*s)->open_stream("cat");
  ASSERT_TRUE(silent.ok()) << silent.error().message;
  const auto start = Steady::now();
  char buf[64];
  auto n = (*silent)->read(buf, sizeof buf);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, ErrorCode::kTimeout) << n.error().message;
  EXPECT_LT(ssh_seconds_since(start), 4.0);
}

TEST_F(SshSessionTest, AQuietCommandWatchedByItsCallerIsNotTimedOut) {
  // A step's follower (exec with should_stop) may be as quiet as its program: no timeout.
  target_.no_progress_timeout_s = 1;
  auto s = connector_->connect(target_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto rc = (*s)->exec("sleep 3; exit 4", {}, [] { return false; });
  ASSERT_TRUE(rc.ok()) << rc.error().message;
  EXPECT_EQ(*rc, 4);
}

// A stream lets the pod send several MiB ahead of the reader, not libssh's default window of
// 1.28 MB, which over a 40 ms link capped a pull at about 24 MB/s (libssh_stream.h,
// kStreamWindow). The pod prints 4.8 MB and then makes a marker file while the test has read one
// byte: with the default window sshd stops reading the command's output after about 1.3 MB and
// the marker never comes. What arrives is then read with sizes that cross the stage buffer's
// edges, and must be exactly what was sent.
TEST_F(SshSessionTest, AStreamLetsThePodSendSeveralMiBAheadOfTheReader) {
  const std::string marker = dir_ + "/printed-all";
  auto stream = session_->open_stream("seq 1 700000 && touch " + marker);
  ASSERT_TRUE(stream.ok()) << stream.error().message;
  std::string got(1, '\0');
  auto n = (*stream)->read(got.data(), 1);
  ASSERT_TRUE(n.ok()) << n.error().message;
  ASSERT_EQ(*n, 1u);
  const auto start = Steady::now();
  while (!fs::exists(marker) && ssh_seconds_since(start) < 20)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(fs::exists(marker)) << "the pod could not print 4.8 MB ahead of the reader";
  std::vector<char> buf(1 << 20);
  const size_t sizes[] = {1, 7, 4096, 65536, 1 << 20, 3};
  for (size_t i = 0;; ++i) {
    auto k = (*stream)->read(buf.data(), sizes[i % std::size(sizes)]);
    ASSERT_TRUE(k.ok()) << k.error().message;
    if (*k == 0) break;
    got.append(buf.data(), *k);
  }
  std::string want;
  for (int i = 1; i <= 700000; ++i) want += std::to_string(i) + "\n";
  EXPECT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want) << "the stream's bytes differ from what the pod printed";
  std::string err;
  auto rc = (*stream)->finish(&err);
  ASSERT_TRUE(rc.ok()) << rc.error().message;
  EXPECT_EQ(*rc, 0) << err;
}

// The children of `parent` (from /proc).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string line;
    std::getline(f, line);
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

TEST_F(SshSessionTest, AnSftpReadFromAServerThatStopsAnsweringTimesOut) {
  target_.no_progress_timeout_s = 2;
  auto s = connector_->connect(target_);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const std::string file = dir_ + "/cloud/volumes/vol/data.bin";
  std::ofstream(file) << std::string(1 << 20, 'x');  // the volume is a directory here
  ASSERT_TRUE((*s)->stat(file).ok());                // starts the session's sftp-server
  auto ppid = (*s)->run_capture("echo $PPID");       // the sshd process serving this session
  ASSERT_TRUE(ppid.ok()) << ppid.error().message;
  // The pods' sshd runs internal-sftp: the session's one other child is its SFTP server.
  auto servers = children_of(static_cast<pid_t>(std::stol(*ppid)));
  ASSERT_EQ(servers.size(), 1u) << "no sftp server under sshd " << *ppid;
  kill(servers[0], SIGSTOP);  // the link and sshd still answer; the file server says nothing
  const auto start = Steady::now();
  size_t got = 0;
  Status st = (*s)->read_file(file, 0, [&](const char*, size_t n) {
    got += n;
    return true;
  });
  kill(servers[0], SIGCONT);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kTimeout) << st.error().message;
  EXPECT_NE(st.error().message.find("no bytes from the pod for 2 s"), std::string::npos)
      << st.error().message;
  EXPECT_EQ(got, 0u);
  EXPECT_LT(ssh_seconds_since(start), 4.0);
}

TEST(SshConnect, RetriesUntilTheDeadlineOnAClosedPort) {
  FakeClock clock;
  auto connector = make_libssh_connector();
  SshTarget nowhere{"127.0.0.1", 1, "nobody", "/nonexistent", ""};
  auto s = connect_with_retry(*connector, nowhere, clock,
                              clock.mono_now() + std::chrono::seconds(10), {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kConnection);
  EXPECT_NE(s.error().message.find("gave up waiting for SSH"), std::string::npos)
      << s.error().message;
  EXPECT_GE(clock.total_slept(), std::chrono::seconds(8));
}

}  // namespace
}  // namespace burst
