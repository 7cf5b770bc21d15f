// Both process-table paths (util/process_table.h) see this test process with its parent and its
// command line: /proc on Linux, and ps(1), the path macOS takes, which is built and run here too.
#include "util/process_table.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace burst {
namespace {

void expect_self(const std::vector<ProcessInfo>& table, const char* path) {
  bool found = false;
  for (const ProcessInfo& p : table) {
    if (p.pid != getpid()) continue;
    found = true;
    EXPECT_EQ(p.ppid, getppid()) << path;
    EXPECT_NE(p.cmdline.find("burst_tests"), std::string::npos) << path << ": " << p.cmdline;
  }
  EXPECT_TRUE(found) << path << " did not list this process";
}

TEST(ProcessTable, PsPathListsThisProcess) { expect_self(posix_ps::list_processes(), "ps"); }

// A command line longer than any line buffer (a local pod's process sets its own arguments) is one
// process: read in 64 KiB pieces, its tail parsed as processes of pid 0 and its head lacked the
// end, where a marker (or, on macOS, the pod's environment after the command) lies.
TEST(ProcessTable, PsPathReadsACommandLineLongerThanAnyBuffer) {
  const std::string head(100000, 'x');
  const std::string marker = "tail-marker-" + std::to_string(getpid());
  const std::string argv0 = head + marker;  // one process, no shell to leave a child behind
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl("/bin/sleep", argv0.c_str(), "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::vector<ProcessInfo> table;
  int listed = 0;
  const ProcessInfo* mine = nullptr;
  for (int i = 0; i < 100 && !mine; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    table = posix_ps::list_processes();
    listed = 0;
    for (const ProcessInfo& p : table) {
      if (p.pid != child) continue;
      ++listed;
      if (p.cmdline.find(head.substr(0, 64)) != std::string::npos) mine = &p;  // after its exec
    }
  }
  const bool found = mine != nullptr;
  const bool has_marker = found && mine->cmdline.find(marker) != std::string::npos;
  const size_t length = found ? mine->cmdline.size() : 0;
  const long bogus =
      std::count_if(table.begin(), table.end(), [](const ProcessInfo& p) { return p.pid <= 0; });
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(found) << "ps never listed the child under its own command line";
  EXPECT_EQ(listed, 1);
  EXPECT_TRUE(has_marker) << "the command line was cut at " << length << " bytes";
  EXPECT_EQ(bogus, 0) << "entries that are pieces of a long line";
}

#ifdef __linux__
TEST(ProcessTable, ProcPathListsThisProcess) {
  expect_self(linux_proc::list_processes(), "/proc");
  EXPECT_FALSE(linux_proc::is_zombie(getpid()));
}

// While execve loads a new image, /proc/<pid>/environ reads empty: the new memory map is in place
// before the kernel records where its environment lies. A pod's process caught there was missed
// by the scan a delete makes (a likely cause of LocalPodDelete's detached sleep outliving a delete
// once in four full runs). A script that execs itself spends much of its life in that window
// (before the fix about one scan in twenty missed it); every scan must find it.
TEST(ProcessTable, AProcessBetweenTwoImagesIsStillFoundByItsEnvironment) {
  const std::string dir = ::testing::TempDir() + "reexec." + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string script = dir + "/again.sh";
  std::ofstream(script) << "#!/bin/sh\nexec " << script << "\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const std::string value = "between-images-" + std::to_string(getpid());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("BURST_TEST_MARK", value.c_str(), 1);
    execl(script.c_str(), script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  int missed = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<int> pids = linux_proc::pids_with_env("BURST_TEST_MARK", value);
    if (std::find(pids.begin(), pids.end(), child) == pids.end()) ++missed;
  }
  const bool still_running = kill(child, 0) == 0 && !linux_proc::is_zombie(child);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(still_running) << "the re-executing script stopped; the test proved nothing";
  EXPECT_EQ(missed, 0) << "scans that missed a live process of the pod, out of 300";
}
#endif

}  // namespace
}  // namespace burst
