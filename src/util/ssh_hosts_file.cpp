#include "util/ssh_hosts_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace burst {
namespace {

constexpr std::string_view kSshHostsMarker = "# burst job ";
constexpr char kSshHostsHeader[] =
    "# Written by burst: one Host per live pod (burst-<job>, burst-<job>-w<i>, burst-<job>-cpu).\n"
    "# Entries come and go with the pods; edits to them are lost. To use them, add this line at\n"
    "# the top of ~/.ssh/config:\n";

// A flock(2) held on "<path>.lock" for the object's life.
class SshHostsLock {
 public:
  explicit SshHostsLock(const std::string& path) {
    fd_ = ::open((path + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      error_ = std::strerror(errno);
      return;
    }
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      error_ = std::strerror(errno);
      return;
    }
  }
  ~SshHostsLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;
  std::string error_;
};

struct SshHostsBlock {
  std::string job, pod;  // from the marker; both empty for the header before the first entry
  std::vector<std::string> aliases;
  std::string text;
};

std::vector<std::string> ssh_hosts_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<SshHostsBlock> parse_ssh_hosts(const std::string& text) {
  std::vector<SshHostsBlock> blocks(1);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(kSshHostsMarker)) {
      SshHostsBlock b;
      const std::vector<std::string> w = ssh_hosts_words(line.substr(kSshHostsMarker.size()));
      if (!w.empty()) b.job = w[0];
      if (w.size() >= 3 && w[1] == "pod") b.pod = w[2];
      blocks.push_back(std::move(b));
    } else if (blocks.size() > 1 && line.starts_with("Host ")) {
      std::vector<std::string> w = ssh_hosts_words(line);
      blocks.back().aliases.assign(w.begin() + 1, w.end());
    }
    blocks.back().text += line + "\n";
  }
  return blocks;
}

Status write_ssh_hosts(const std::string& path, const std::vector<SshHostsBlock>& blocks) {
  std::string text;
  for (const SshHostsBlock& b : blocks) text += b.text;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out << text;
    out.flush();
    if (!out)
      return make_error(ErrorCode::kInternal, "cannot write " + tmp + ": " + std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::permissions(tmp, std::filesystem::perms(0600), ec);
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return make_error(ErrorCode::kInternal, "cannot replace " + path + ": " + std::strerror(errno));
  return Status::Ok();
}

Result<std::vector<SshHostsBlock>> read_ssh_hosts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::vector<SshHostsBlock> fresh(1);
    fresh[0].text = std::string(kSshHostsHeader) + "#   Include " + path + "\n";
    return fresh;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_ssh_hosts(ss.str());
}

// A config value: as is when plain, else double-quoted; a value ssh cannot carry is refused.
Result<std::string> ssh_config_value(const std::string& what, const std::string& v) {
  if (v.empty() || std::any_of(v.begin(), v.end(), [](char c) {
        return c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      }))
    return make_error(ErrorCode::kInvalid, "ssh config: " + what + " \"" + v +
                                               "\" is empty or has a quote or control character");
  if (v.find_first_of(" \t#") == std::string::npos) return v;
  return "\"" + v + "\"";
}

}  // namespace

std::string ssh_hosts_path(const std::string& config_dir) { return config_dir + "/ssh_config"; }

std::string ssh_host_alias(const std::string& job_id, int worker, bool cpu) {
  std::string out = "burst-";
  for (char c : job_id)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '-';
  if (cpu) return out + "-cpu";
  if (worker >= 0) out += "-w" + std::to_string(worker);
  return out;
}

std::string render_ssh_host(const SshHostEntry& e) {
  auto value = [](const std::string& what, const std::string& v) {
    auto r = ssh_config_value(what, v);
    return r.ok() ? *r : std::string();
  };
  std::string aliases;
  for (const std::string& a : e.aliases) aliases += " " + a;
  std::string out = std::string(kSshHostsMarker) + e.job_id + " pod " + e.pod_id + "\n";
  out += "Host" + aliases + "\n";
  out += "  HostName " + value("host", e.host) + "\n";
  out += "  Port " + std::to_string(e.port) + "\n";
  out += "  User " + value("user", e.user) + "\n";
  out += "  IdentityFile " + value("identity file", e.identity_file) + "\n";
  out += "  IdentitiesOnly yes\n";
  out += "  UserKnownHostsFile " + value("known hosts file", e.known_hosts_file) + "\n";
  out += "  StrictHostKeyChecking accept-new\n";
  out += "  LogLevel ERROR\n";
  return out;
}

Status add_ssh_host(const std::string& path, const SshHostEntry& e) {
  for (const auto& [what, v] : {std::pair<std::string, std::string>{"host", e.host},
                                {"user", e.user},
                                {"identity file", e.identity_file},
                                {"known hosts file", e.known_hosts_file},
                                {"job", e.job_id},
                                {"pod", e.pod_id}})
    if (auto ok = ssh_config_value(what, v); !ok.ok()) return ok.error();
  for (const std::string& a : e.aliases)
    if (a.empty() || a.find_first_of(" \t\"*?!,") != std::string::npos)
      return make_error(ErrorCode::kInvalid, "ssh config: bad Host alias \"" + a + "\"");
  if (e.job_id.find_first_of(" \t") != std::string::npos ||
      e.pod_id.find_first_of(" \t") != std::string::npos)
    return make_error(ErrorCode::kInvalid, "ssh config: a job or pod id with a space");
  SshHostsLock lock(path);
  if (!lock.error().empty())
    return make_error(ErrorCode::kInternal, "cannot lock " + path + ".lock: " + lock.error());
  auto blocks = read_ssh_hosts(path);
  if (!blocks.ok()) return blocks.error();
  std::vector<SshHostsBlock> kept;
  for (size_t i = 0; i < blocks->size(); ++i) {
    SshHostsBlock& b = (*blocks)[i];
    const bool same_pod = i > 0 && b.pod == e.pod_id;
    const bool same_alias = std::any_of(b.aliases.begin(), b.aliases.end(), [&](const auto& a) {
      return std::find(e.aliases.begin(), e.aliases.end(), a) != e.aliases.end();
    });
    if (!same_pod && !same_alias) kept.push_back(std::move(b));
  }
  SshHostsBlock added;
  added.text = "\n" + render_ssh_host(e);
  kept.push_back(std::move(added));
  return write_ssh_hosts(path, kept);
}

Status remove_ssh_hosts(const std::string& path, std::string_view job_id, std::string_view pod_id) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::Ok();
  SshHostsLock lock(path);
  if (!lock.error().empty())
    return make_error(ErrorCode::kInternal, "cannot lock " + path + ".lock: " + lock.error());
  auto blocks = read_ssh_hosts(path);
  if (!blocks.ok()) return blocks.error();
  std::vector<SshHostsBlock> kept;
  bool removed = false;
  for (size_t i = 0; i < blocks->size(); ++i) {
    SshHostsBlock& b = (*blocks)[i];
    const bool gone =
        i > 0 && ((!pod_id.empty() && b.pod == pod_id) || (!job_id.empty() && b.job == job_id));
    if (gone) {
      removed = true;
      // The blank line that separated it from the entry before goes with it.
      if (!kept.empty() && kept.back().text.ends_with("\n\n")) kept.back().text.pop_back();
      continue;
    }
    kept.push_back(std::move(b));
  }
  if (!removed) return Status::Ok();
  return write_ssh_hosts(path, kept);
}

bool ssh_config_includes(const std::string& user_config, const std::string& path) {
  std::ifstream in(user_config);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> w = ssh_hosts_words(line);
    if (w.size() < 2) continue;
    std::string key = w[0];
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (key != "include") continue;
    for (size_t i = 1; i < w.size(); ++i) {
      std::string p = w[i];
      if (p.size() >= 2 && p.front() == '"' && p.back() == '"') p = p.substr(1, p.size() - 2);
      if (p == path) return true;
      const char* home = std::getenv("HOME");
      if (home && p.starts_with("~/") && std::string(home) + p.substr(1) == path) return true;
    }
  }
  return false;
}

}  // namespace burst
