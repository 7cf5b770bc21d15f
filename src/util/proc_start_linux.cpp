// process_start_time on Linux: "<host>@<boot id>/<starttime>", field 22 of /proc/<pid>/stat.
#ifdef __linux__
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

#include "util/proc_start.h"

namespace burst {
namespace {

// A small /proc file whole, or "" (plain read(2): a process that exits mid-read gives ESRCH).
std::string read_proc_file(const std::string& path) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[1024];
  while (out.size() < 64 * 1024) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace

std::string process_start_time(int64_t pid) {
  if (pid <= 0) return "";
  const std::string stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  // The command name (field 2) is in parentheses and may hold spaces and ')': skip past the last.
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return "";
  std::istringstream rest(stat.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i)  // fields 3 (state) .. 22 (starttime)
    if (!(rest >> field)) return "";
  std::string boot = read_proc_file("/proc/sys/kernel/random/boot_id");
  boot = boot.substr(0, boot.find('\n'));
  return this_host() + "@" + boot + "/" + field;
}

}  // namespace burst
#endif  // __linux__
