#include "chaos/chaos_matrix.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace burst::chaos {

const std::vector<std::string>& providers() {
  static const std::vector<std::string> v = {"local", "runpod", "lambda", "vast"};
  return v;
}

const std::vector<std::string>& points() {
  static const std::vector<std::string> v = {"after-create", "wait-ssh",  "mid-sync",
                                             "mid-setup",    "mid-run",   "mid-pull",
                                             "after-delete", "mid-upload"};
  return v;
}

const std::vector<std::string>& faults() {
  static const std::vector<std::string> v = {
      "kill-run",   "kill-burstd", "ssh-cut",     "api-500",    "api-timeout",
      "pod-silent", "pod-hostile", "worker-lost", "worker-cut", "spot-preempted"};
  return v;
}

// Where each provider's upload runs for the chaos spec (the plan's hand-off choice, pinned by
// the cells: a different choice fails them rather than silently changing what is tested).
std::string handoff_of(const std::string& provider) {
  if (provider == "local" || provider == "runpod") return "cpu-pod";
  if (provider == "lambda") return "gpu-pod";
  return "local";
}

std::string na_reason(const std::string& provider, const std::string& fault,
                      const std::string& point) {
  if (fault == "spot-preempted" && provider != "vast" && provider != "runpod")
    return "no spot pods on " + provider + " (docs/providers.md, \"Spot pods\")";
  if (is_worker_fault(fault)) {
    if (point == "after-delete") return "the worker's pod is already deleted: nothing to lose";
    if (point == "mid-upload") return "the upload is the job's, after every worker: no worker runs";
    if (fault == "worker-cut" && (point == "after-create" || point == "wait-ssh"))
      return "no SSH connection exists yet";
    return "";
  }
  if (is_pod_fault(fault)) {
    if (point == "after-create") return "burst sends the pod nothing before SSH is up";
    if (point == "after-delete") return "the pod is gone: nothing is left to answer";
    if (point == "mid-upload" && handoff_of(provider) == "local")
      return "the upload runs on this machine (hand-off local): no pod answers it";
    return "";
  }
  const bool api = fault == "api-500" || fault == "api-timeout";
  if (api && provider == "local") return "the local cloud has no HTTP API";
  if (api && point == "mid-upload" && handoff_of(provider) == "local")
    return "the upload runs on this machine after the GPU delete: no API call follows";
  if (fault == "ssh-cut") {
    if (point == "after-create" || point == "wait-ssh") return "no SSH connection exists yet";
    if (point == "after-delete") return "SSH is closed before the delete";
    if (point == "mid-upload" && handoff_of(provider) == "local")
      return "the upload runs on this machine (hand-off local): no SSH";
  }
  return "";
}

// The CI subset: every (fault, point) pair once, on one provider in rotation, so each provider
// meets most faults; plus the cheap cells (a kill before SSH) everywhere. The rest is chaos-full.
bool in_ci_subset(const std::string& provider, const std::string& fault, const std::string& point) {
  if (!na_reason(provider, fault, point).empty()) return false;
  // The pod faults: two cells in CI (the confined pull on the local cloud, a silent pull on an
  // emulated cloud); the other 44 are chaos-full.
  if (is_pod_fault(fault))
    return point == "mid-pull" && ((fault == "pod-hostile" && provider == "local") ||
                                   (fault == "pod-silent" && provider == "runpod"));
  // The 3-worker cells each run a whole wide job and a retry: one in CI (a pod lost mid-run on an
  // emulated cloud), the other 39 are chaos-full.
  if (is_worker_fault(fault))
    return point == "mid-run" && ((fault == "worker-lost" && provider == "runpod") ||
                                  (fault == "spot-preempted" && provider == "vast"));
  if ((fault == "kill-run" || fault == "kill-burstd") &&
      (point == "after-create" || point == "wait-ssh"))
    return true;
  std::vector<std::string> applies;
  for (const auto& p : providers())
    if (na_reason(p, fault, point).empty()) applies.push_back(p);
  size_t f = 0, pt = 0;  // the rotation counts the original five faults only
  while (faults()[f] != fault) ++f;
  while (points()[pt] != point) ++pt;
  return applies[(f + pt) % applies.size()] == provider;
}

bool is_pod_fault(const std::string& fault) {
  return fault == "pod-silent" || fault == "pod-hostile";
}

bool is_worker_fault(const std::string& fault) {
  return fault == "worker-lost" || fault == "worker-cut" || fault == "spot-preempted";
}

std::string cell_id(const std::string& provider, const std::string& fault,
                    const std::string& point) {
  return provider + "." + fault + "." + point;
}

void write_result(const std::string& dir, const CellResult& r) {
  std::ofstream f(dir + "/" + r.id + ".result", std::ios::trunc);
  std::string note = r.note;
  for (char& c : note)
    if (c == '\n') c = ' ';
  f << "passed=" << r.passed << "\npods_leaked=" << r.pods_leaked
    << "\nartefacts_corrupted=" << r.artefacts_corrupted << "\nfiles_outside=" << r.files_outside
    << "\nleft_for_reap=" << r.left_for_reap << "\njob_state=" << r.job_state
    << "\nseconds=" << r.seconds << "\nnote=" << note << "\n";
}

std::optional<CellResult> read_result(const std::string& dir, const std::string& id) {
  std::ifstream f(dir + "/" + id + ".result");
  if (!f) return std::nullopt;
  std::map<std::string, std::string> kv;
  for (std::string line; std::getline(f, line);) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  CellResult r;
  r.id = id;
  r.passed = kv["passed"] == "1";
  r.pods_leaked = std::atoi(kv["pods_leaked"].c_str());
  r.artefacts_corrupted = std::atoi(kv["artefacts_corrupted"].c_str());
  r.files_outside = std::atoi(kv["files_outside"].c_str());
  r.left_for_reap = std::atoi(kv["left_for_reap"].c_str());
  r.job_state = kv["job_state"];
  r.seconds = std::atof(kv["seconds"].c_str());
  r.note = kv["note"];
  return r;
}

namespace {

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s += std::string(w - s.size(), ' ');
  return s;
}

}  // namespace

std::string render_table(const std::string& dir, bool* ok) {
  std::ostringstream out;
  int run = 0, passed = 0, na = 0, not_run = 0, leaked = 0, corrupted = 0, outside = 0, left = 0;
  double seconds = 0;
  std::map<std::string, std::vector<std::string>> na_why;  // reason -> cells
  std::vector<std::string> failures;
  out << "chaos matrix: fault points x ways to die x providers (docs/chaos.md)\n"
      << "cell: ok = recovered (0 pods live, volume intact, artefacts complete or absent, nothing "
         "written outside them, job record final; job state in brackets); FAIL; n/a; - = not "
         "run\n";
  for (const auto& p : providers()) {
    out << "\n" << p << "\n" << pad("point", 14);
    for (const auto& f : faults()) out << pad(f, 18);
    out << "\n";
    for (const auto& pt : points()) {
      out << pad(pt, 14);
      for (const auto& f : faults()) {
        const std::string id = cell_id(p, f, pt);
        std::string cell;
        if (std::string why = na_reason(p, f, pt); !why.empty()) {
          ++na;
          na_why[why].push_back(id);
          cell = "n/a";
        } else if (auto r = read_result(dir, id)) {
          ++run;
          leaked += r->pods_leaked;
          corrupted += r->artefacts_corrupted;
          outside += r->files_outside;
          left += r->left_for_reap;
          seconds += r->seconds;
          if (r->passed) ++passed;
          std::string state = r->job_state.empty() ? "?" : r->job_state.substr(0, 4);
          cell = (r->passed ? "ok [" : "FAIL [") + state + "]";
          if (r->pods_leaked) cell += " LEAK" + std::to_string(r->pods_leaked);
          if (r->files_outside) cell += " OUT" + std::to_string(r->files_outside);
          if (!r->passed) failures.push_back(id + ": " + r->note);
        } else {
          ++not_run;
          cell = "-";
        }
        out << pad(cell, 18);
      }
      out << "\n";
    }
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.0f", seconds);
  out << "\ncells: " << run + na + not_run << " (" << run << " run, " << passed << " passed, " << na
      << " n/a, " << not_run << " not run)\n"
      << "pods leaked: " << leaked << "\nartefacts corrupted: " << corrupted
      << "\nfiles written outside artefact dirs: " << outside
      << "\npods the faulted process left for recovery (then deleted by it): " << left
      << "\ncell time, summed: " << secs << " s\n";
  for (const auto& [why, ids] : na_why) out << "n/a (" << ids.size() << "): " << why << "\n";
  for (const auto& f : failures) out << "FAILED " << f << "\n";
  *ok = leaked == 0 && corrupted == 0 && outside == 0 && passed == run;
  return out.str();
}

}  // namespace burst::chaos
