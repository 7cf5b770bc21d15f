#include "ssh/own_host_probe.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "util/shell.h"

namespace burst::ownhost {
namespace {

constexpr const char* kGpuMarker = "@@burst-gpus";
constexpr const char* kLockMarker = "@@burst-lock";
constexpr const char* kDirMarker = "@@burst-dir";

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Printable ASCII only, at most `max` bytes: what a message may quote of a host's output.
std::string printable(const std::string& s, size_t max) {
  std::string out;
  for (char c : s) {
    if (out.size() >= max) break;
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    size_t nl = s.find('\n', at);
    if (nl == std::string::npos) nl = s.size();
    std::string line = s.substr(at, nl - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    at = nl + 1;
  }
  return out;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::string upper_word(const std::string& s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  return out;
}

std::string strip_prefix(std::string s, const char* prefix) {
  const std::string p = prefix;
  if (s.rfind(p, 0) == 0) s = s.substr(p.size());
  return s;
}

}  // namespace

bool safe_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxName || name[0] == '.' || name[0] == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string work_dir_word(const std::string& work_dir) {
  if (work_dir == "~") return "\"$HOME\"";
  if (work_dir.rfind("~/", 0) == 0) return "\"$HOME\"/" + shell_quote(work_dir.substr(2));
  return shell_quote(work_dir);
}

Result<std::vector<ProbedGpu>> parse_nvidia_smi(const std::string& csv) {
  std::vector<ProbedGpu> out;
  for (const std::string& raw : lines_of(csv)) {
    const std::string line = trim(raw);
    if (line.empty()) continue;
    auto bad = [&](const std::string& why) {
      return make_error(ErrorCode::kRemoteFailed,
                        "nvidia-smi: " + why + ": \"" + printable(line, 120) + "\"");
    };
    if (out.size() == kMaxGpus) return bad("more than " + std::to_string(kMaxGpus) + " GPUs");
    const size_t comma = line.rfind(',');
    if (comma == std::string::npos) return bad("expected \"<name>, <memory> MiB\"");
    ProbedGpu g;
    g.name = trim(line.substr(0, comma));
    if (g.name.empty() || g.name.size() > kMaxName) return bad("no GPU name, or one too long");
    for (char c : g.name)
      if (c < 0x20 || c >= 0x7f) return bad("a GPU name with unprintable bytes");
    std::string mem = trim(line.substr(comma + 1));
    if (mem.size() > 4 && mem.compare(mem.size() - 4, 4, " MiB") == 0) {
      mem = mem.substr(0, mem.size() - 4);
      if (mem.empty() || mem.size() > 9 || !std::all_of(mem.begin(), mem.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
          }))
        return bad("memory is not a whole number of MiB");
      g.memory_mib = std::strtod(mem.c_str(), nullptr);
    } else if (mem != "[N/A]" && mem != "[Not Supported]") {
      return bad("expected \"<name>, <memory> MiB\"");
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::string probe_command(const std::string& work_dir) {
  const std::string max = std::to_string(kMaxName + 8);
  return "W=" + work_dir_word(work_dir) + "; printf '%s\\n' '" + kGpuMarker +
         "'; if command -v nvidia-smi >/dev/null 2>&1; then "
         "nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -c 16384; "
         "else echo 'nvidia-smi: not found on the host'; fi; printf '\\n%s\\n' '" +
         kLockMarker + "'; if [ -d \"$W/lock\" ]; then echo locked; h=$(head -c " + max +
         " \"$W/lock/pod\" 2>/dev/null); v=$(head -c " + max +
         " \"$W/lock/volume\" 2>/dev/null); printf '%s\\n%s\\n' \"$h\" \"$v\"; fi; "
         "printf '\\n%s\\n' '" +
         kDirMarker + "'; mkdir -p -- \"$W\" && chmod 700 -- \"$W\" && cd -- \"$W\" && pwd -P";
}

Result<HostProbe> parse_probe(const std::string& out) {
  auto missing = [&](const char* what) {
    return make_error(ErrorCode::kRemoteFailed, std::string("host probe: no ") + what +
                                                    " section in the answer: \"" +
                                                    printable(out.substr(0, 120), 120) + "\"");
  };
  const std::string dir_mark = std::string("\n") + kDirMarker + "\n";
  const std::string lock_mark = std::string("\n") + kLockMarker + "\n";
  const std::string gpu_mark = std::string(kGpuMarker) + "\n";
  // The last markers are burst's own: whatever nvidia-smi printed comes before them.
  const size_t dir_at = out.rfind(dir_mark);
  if (dir_at == std::string::npos) return missing("work dir");
  const size_t lock_at = out.rfind(lock_mark, dir_at);
  if (lock_at == std::string::npos) return missing("lock");
  if (out.rfind(gpu_mark, 0) != 0) return missing("GPU");
  HostProbe p;
  const std::string gpus = out.substr(gpu_mark.size(), lock_at - gpu_mark.size());
  const std::string lock =
      out.substr(lock_at + lock_mark.size(), dir_at - lock_at - lock_mark.size());
  const std::string dir = trim(out.substr(dir_at + dir_mark.size()));
  auto parsed = parse_nvidia_smi(gpus);
  if (parsed.ok()) {
    p.gpus = std::move(*parsed);
  } else {
    p.gpu_error = printable(trim(gpus).empty() ? parsed.error().message : trim(gpus), 200);
  }
  std::vector<std::string> lock_lines = lines_of(lock);
  if (!lock_lines.empty() && trim(lock_lines[0]) == "locked") {
    p.locked = true;
    if (lock_lines.size() > 1) p.lock_holder = printable(trim(lock_lines[1]), kMaxName);
    if (lock_lines.size() > 2 && safe_name(trim(lock_lines[2])))
      p.lock_volume = trim(lock_lines[2]);
  }
  if (dir.empty() || dir[0] != '/' || dir.find('\n') != std::string::npos || dir.size() > 4096)
    return missing("absolute work dir");
  p.work_dir = dir;
  return p;
}

std::string catalog_gpu_name(const std::string& smi_name, double memory_mib) {
  std::string n = trim(smi_name);
  n = strip_prefix(n, "NVIDIA ");
  n = strip_prefix(n, "GeForce ");
  n = strip_prefix(n, "Tesla ");
  const std::string u = upper_word(n);
  // The families whose nvidia-smi names carry form factor and memory (names as the driver prints
  // them, e.g. "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB").
  if (u.rfind("A100", 0) == 0) {
    if (memory_mib >= 60000) return contains(u, "PCIE") ? "A100_80GB_PCIE" : "A100_80GB";
    return contains(u, "PCIE") ? "A100_40GB_PCIE" : "A100_40GB";
  }
  if (u.rfind("H100", 0) == 0) {
    if (contains(u, "NVL")) return "H100_NVL";
    if (contains(u, "PCIE")) return "H100_PCIE";
    return "H100_SXM";
  }
  // The China-market A100 and H100: "NVIDIA A800-SXM4-80GB", "NVIDIA A800 80GB PCIe",
  // "NVIDIA H800", "NVIDIA H800 PCIe" (NVIDIA/open-gpu-kernel-modules' README table). The 40 GB
  // A800s and the H800 PCIe are not in the catalog.
  if (u.rfind("A800", 0) == 0) {
    if (memory_mib > 0 && memory_mib < 60000) return "A800_40GB";
    return contains(u, "PCIE") ? "A800_80GB_PCIE" : "A800_80GB";
  }
  if (u.rfind("H800", 0) == 0) return contains(u, "PCIE") ? "H800_PCIE" : "H800_SXM";
  if (u.rfind("GH200", 0) == 0) return "GH200";
  if (u.rfind("H200", 0) == 0) return contains(u, "NVL") ? "H200_NVL" : "H200";
  if (u.rfind("V100", 0) == 0) {
    if (memory_mib >= 30000) return "V100_32GB";
    return contains(u, "PCIE") ? "V100_PCIE" : "V100";
  }
  // "RTX PRO 6000 Blackwell Workstation Edition" and its Server and Max-Q boards.
  if (u.rfind("RTX_PRO_6000", 0) == 0) {
    if (contains(u, "MAX_Q")) return "RTX_PRO_6000_MAXQ";
    return contains(u, "SERVER") ? "RTX_PRO_6000_SERVER" : "RTX_PRO_6000";
  }
  // The 8 GB cards share their names with the 16 GB ones the catalog holds.
  if ((u == "RTX_4060_TI" || u == "RTX_5060_TI") && memory_mib > 0 && memory_mib < 15000)
    return u + "_8GB";
  if (u.rfind("B200", 0) == 0) return "B200";
  // "RTX 6000 Ada Generation" -> RTX_6000_ADA; "RTX 4080 SUPER" -> RTX_4080_SUPER.
  std::string s = u;
  const std::string gen = "_GENERATION";
  if (s.size() > gen.size() && s.compare(s.size() - gen.size(), gen.size(), gen) == 0)
    s = s.substr(0, s.size() - gen.size());
  return s;
}

std::string lock_command(const std::string& work_dir, const std::string& pod_name,
                         const std::string& volume) {
  const std::string pod = shell_quote(pod_name);
  std::string vol_dir = volume.empty() ? "" : " \"$W/volumes/\"" + shell_quote(volume);
  // The lock appears whole or not at all: its owner is written into a temp dir that is then
  // renamed to "lock" (rename(2) is atomic). When another job's lock appeared meanwhile, `mv`
  // moves the temp dir into it instead; it is removed at once. A job killed half way leaves only
  // "$W/.lock.<pid>", never an owner-less lock that no release could clear.
  return "W=" + work_dir_word(work_dir) + "; mkdir -p -- \"$W/jobs\"" + vol_dir +
         " && chmod 700 -- \"$W\" && { T=\"$W/.lock.$$\"; if [ ! -d \"$W/lock\" ]; then rm -rf -- "
         "\"$T\"; if mkdir -- \"$T\" && printf '%s\\n' " +
         shell_quote(volume) + " > \"$T/volume\" && printf '%s\\n' " + pod +
         " > \"$T/pod\"; then mv -- \"$T\" \"$W/lock\" 2>/dev/null; fi; rm -rf -- \"$T\" "
         "\"$W/lock/.lock.$$\"; fi; h=$(head -c " +
         std::to_string(kMaxName + 8) + " \"$W/lock/pod\" 2>/dev/null); if [ \"$h\" = " + pod +
         " ]; then mkdir -p -- \"$W/jobs/\"" + pod + " && chmod 700 -- \"$W/jobs/\"" + pod +
         " && echo locked && cd -- \"$W\" && pwd -P; else echo held; printf '%s\\n' \"$h\"; fi; }";
}

std::string release_command(const std::string& work_dir, const std::string& pod_name) {
  const std::string pod = shell_quote(pod_name);
  const std::string each_pid =
      "for f in \"$d\"/*.pid; do [ -f \"$f\" ] || continue; p=$(head -c 20 \"$f\"); "
      "case \"$p\" in ''|*[!0-9]*) continue;; esac; ";
  return "W=" + work_dir_word(work_dir) + "; d=\"$W/jobs/\"" + pod +
         "; if [ -d \"$d\" ]; then n=0; " + each_pid +
         "n=1; kill -TERM -- -\"$p\" 2>/dev/null || kill -TERM \"$p\" 2>/dev/null; done; "
         "[ $n = 0 ] || sleep 1; " +
         each_pid +
         "kill -KILL -- -\"$p\" 2>/dev/null || kill -KILL \"$p\" 2>/dev/null; done; "
         "rm -rf -- \"$d\"; fi; h=$(head -c " +
         std::to_string(kMaxName + 8) + " \"$W/lock/pod\" 2>/dev/null); if [ \"$h\" = " + pod +
         " ]; then rm -rf -- \"$W/lock\"; fi; echo released";
}

}  // namespace burst::ownhost
