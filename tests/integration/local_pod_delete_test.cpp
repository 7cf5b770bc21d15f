// Deleting a local pod (providers/local, delete_pod) leaves none of its processes running, even
// ones that fight the delete: a TERM trap that starts a detached process without the pod's
// marker, a loop that keeps forking such processes, and a pod an earlier, racing delete already
// removed the directory of. The spot storm's double render (tests/e2e/spot_e2e_test.cpp) came
// from the last case: a preemption's delete missed a session sshd was forking, then burst's own
// delete found no directory and stopped there, and the missed session rendered every item again.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "integration/loopback_pod.h"
#include "util/process.h"

namespace burst {
namespace {

class LocalPodDelete : public LoopbackPodTest {
 protected:
  void TearDown() override {
    for (int pid : with_arg(marker_)) kill(pid, SIGKILL);
    LoopbackPodTest::TearDown();
  }
  // A `sleep` argument no other process has: what the pod's processes are found by here.
  std::string marker_ = std::to_string(900 + getpid() % 97) + "." + std::to_string(getpid());

  static std::vector<int> with_arg(const std::string& needle) {
    std::vector<int> out;
    for (const ProcessInfo& p : list_processes())
      if (p.cmdline.find("sleep " + needle) != std::string::npos && process_alive(p.pid))
        out.push_back(p.pid);
    return out;
  }
  // Starts `script` detached on the pod (its own session, as a daemon would), then waits until
  // at least `at_least` marked processes run.
  void start_detached(const std::string& script, size_t at_least) {
    auto out = session_->run_capture("setsid bash -c '" + script +
                                     "' </dev/null >/dev/null 2>&1 & echo started");
    ASSERT_TRUE(out.ok()) << out.error().message;
    for (int i = 0; i < 500 && with_arg(marker_).size() < at_least; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_GE(with_arg(marker_).size(), at_least) << "the pod's processes never started";
  }
  void delete_and_expect_nothing_left() {
    session_.reset();
    Status st = provider_->delete_pod(pod_.id);
    ASSERT_TRUE(st.ok()) << st.error().message;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a handler's child, if any
    EXPECT_EQ(with_arg(marker_).size(), 0u) << "processes of the deleted pod still run";
    auto again = provider_->get_pod(pod_.id);
    EXPECT_FALSE(again.ok()) << "the deleted pod is still listed";
  }
};

TEST_F(LocalPodDelete, ATermTrapCannotStartAProcessThatOutlivesTheDelete) {
  // `sleep M` runs with the pod's marker; the trap's `env -i sleep M` would run without it.
  start_detached("trap \"env -i sleep " + marker_ + " & exit\" TERM; sleep " + marker_ + " & wait",
                 1);
  delete_and_expect_nothing_left();
}

TEST_F(LocalPodDelete, AForkingLoopLeavesNoChildBehind) {
  // Children without the marker, forked as fast as bash can: each is found only as a descendant.
  start_detached("while :; do env -i sleep " + marker_ + " & done", 20);
  delete_and_expect_nothing_left();
}

TEST_F(LocalPodDelete, ADeleteAfterTheDirectoryIsGoneStillStopsThePodsProcesses) {
  start_detached("sleep " + marker_, 1);
  // What a racing earlier delete leaves: no directory, a process with the pod's marker.
  const std::filesystem::path dir = dir_ + "/cloud/pods/" + pod_.id;
  std::filesystem::rename(dir, dir.string() + ".gone");
  session_.reset();
  Status st = provider_->delete_pod(pod_.id);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(with_arg(marker_).size(), 0u) << "the pod's process outlived a second delete";
  pod_.id.clear();  // deleted; TearDown has nothing to delete
}

}  // namespace
}  // namespace burst
