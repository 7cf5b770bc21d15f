// Both process-table paths (util/process_table.h) see this test process with its parent and its
// command line: /proc on Linux, and ps(1), the path macOS takes, which is built and run here too.
#include "util/process_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

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

#ifdef __linux__
TEST(ProcessTable, ProcPathListsThisProcess) {
  expect_self(linux_proc::list_processes(), "/proc");
  EXPECT_FALSE(linux_proc::is_zombie(getpid()));
}
#endif

}  // namespace
}  // namespace burst
