#include "spec/skypilot_reader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "spec/skypilot_buckets.h"
#include "spec/skypilot_resources.h"
#include "spec/skypilot_task.h"
#include "spec/spec_checks.h"

namespace burst::spec {
namespace {

namespace fs = std::filesystem;
using sv = std::string_view;

// Keys a burst spec does not have; any of them marks a SkyPilot file.
constexpr sv kSkyOnlyKeys[] = {"workdir", "num_nodes",      "envs",         "file_mounts",
                               "volumes", "service",        "config",       "inputs",
                               "outputs", "event_callback", "experimental", "pool"};
// Keys a SkyPilot task does not have.
constexpr sv kBurstOnlyKeys[] = {"version", "workload", "volume",    "image",
                                 "env",     "code",     "artefacts", "pull_on_failure",
                                 "upload",  "budget",   "schedule"};
constexpr double kAssumedRunSeconds = 3600;
// A task that would run until stopped (a service, a server, a Ray head, no end) is stopped after
// this long unless budget.max_runtime says otherwise, so its pod cannot bill until someone
// notices.
constexpr double kDefaultServerRuntimeSeconds = 4 * 3600;
// What burst's default image holds (PipelineSpec::image; docker.io/library/ubuntu:22.04).
constexpr char kDefaultImageHolds[] =
    "Ubuntu 22.04 with bash, coreutils and apt, run as root; no Python, pip, conda, uv, curl or "
    "CUDA toolkit (the GPU driver comes from the host)";

bool has_sky_keys(const yaml::Node& doc) {
  if (!doc.is_map()) return false;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    std::string key = key_name(it->first);
    if (std::find(std::begin(kSkyOnlyKeys), std::end(kSkyOnlyKeys), key) != std::end(kSkyOnlyKeys))
      return true;
    if (key == "secrets" && it->second.is_map()) return true;
    if (key == "resources" && it->second.is_map()) {
      for (auto r = it->second.begin(); r != it->second.end(); ++r)
        if (is_skypilot_resource_key(key_name(r->first))) return true;
    }
  }
  return false;
}

bool has_burst_keys(const yaml::Node& doc) {
  if (!doc.is_map()) return false;
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (std::find(std::begin(kBurstOnlyKeys), std::end(kBurstOnlyKeys), key_name(it->first)) !=
        std::end(kBurstOnlyKeys))
      return true;
  return false;
}

// SkyPilot names are freer than burst's: lower case, other characters become '-'.
std::string burst_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (ok)
      out += l;
    else if (!out.empty() && out.back() != '-')
      out += '-';
    if (out.size() == 63) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A shell word for a remote path: "~/x" keeps $HOME expandable, the rest is single-quoted.
std::string shell_path(const std::string& path) {
  if (path == "~") return "\"$HOME\"";
  if (path.starts_with("~/")) return "\"$HOME\"/" + quote(path.substr(2));
  if (!path.starts_with('/')) return "\"$HOME\"/" + quote(path);  // SkyPilot: relative to ~
  return quote(path);
}

// .skyignore replaces .gitignore in SkyPilot: its patterns, and whether it exists.
bool read_skyignore(const std::string& dir, std::vector<std::string>* patterns) {
  std::ifstream in(dir + "/.skyignore");
  if (!in) return false;
  std::string line;
  for (int n = 0; n < 10000 && std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.starts_with('#')) continue;
    patterns->push_back(line);
  }
  return true;
}

class Assembler {
 public:
  Assembler(const SpecLoadOptions& options, PipelineSpec& spec, Problems& problems,
            SpecReadInfo& info)
      : options_(options), spec_(spec), problems_(problems), info_(info) {}

  void run(std::vector<SkyTask>& tasks, const std::string& chain_name, SourcePos chain_pos);

 private:
  void name(const SkyTask& main, const std::string& chain_name, SourcePos chain_pos);
  void code(const SkyTask& main);
  void values(const SkyTask& task);
  void mounts(const SkyTask& main);
  void buckets(const SkyTask& main);
  void skypilot_env(const SkyTask& main);
  std::string chained(const SkyTask& task, size_t index) const;

  const SpecLoadOptions& options_;
  PipelineSpec& spec_;
  Problems& problems_;
  SpecReadInfo& info_;
  std::string mount_script_;
  BucketScripts bucket_scripts_;
  std::set<std::string> secret_names_;
};

void Assembler::name(const SkyTask& main, const std::string& chain_name, SourcePos chain_pos) {
  std::string given = chain_name.empty() ? main.name : chain_name;
  SourcePos pos = chain_name.empty() ? main.name_pos : chain_pos;
  std::string stem = fs::path(spec_.path).stem().string();
  spec_.name = burst_name(given.empty() ? stem : given);
  if (spec_.name.empty()) spec_.name = "skypilot-task";
  if (given.empty())
    problems_.note({1, 1}, "name", "none given: the pipeline is named \"" + spec_.name + "\"");
  else if (spec_.name != given)
    problems_.note(pos, "name",
                   "\"" + given + "\" becomes \"" + spec_.name + "\" (burst's name rules)");
  spec_.volume.name = spec_.name;
  spec_.code.remote_dir = "$BURST_VOLUME/" + spec_.name;
}

void Assembler::code(const SkyTask& main) {
  std::string dir;
  if (main.workdir) {
    dir = (fs::path(spec_.dir) / *main.workdir).lexically_normal().string();
    if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      problems_.add(main.workdir_pos, "workdir", "directory not found: " + dir);
      return;
    }
  } else if (std::any_of(main.mounts.begin(), main.mounts.end(), [](const SkyMount& m) {
               return !m.local.starts_with("~") && !m.local.starts_with("/");
             })) {  // a source beside the file: sync its dir (others go through code.add)
    dir = spec_.dir;
    problems_.note(main.mounts.front().pos, "file_mounts",
                   "no workdir: the spec file's directory is synced so these files can be copied");
  } else {
    return;
  }
  spec_.code.dir = dir;
  if (read_skyignore(dir, &spec_.code.exclude)) spec_.code.gitignore = false;
}

void Assembler::values(const SkyTask& task) {
  for (const SkyValue& v : task.envs) {
    auto given = options_.env.find(v.name);
    std::string path = "envs." + v.name;
    if (!v.value && given == options_.env.end() && spec_.env.contains(v.name)) {
      problems_.add(v.pos, path,
                    "null here, but given a value in an earlier task; burst runs the chain with "
                    "one environment: give it once");
      continue;
    }
    if (!v.value && given == options_.env.end()) {
      // SkyPilot's null: the value must be supplied at launch.
      if (options_.for_run)
        problems_.add(v.pos, path,
                      "null: a value must be supplied; pass --env " + v.name + "=VALUE");
      else
        problems_.note(v.pos, path,
                       "null: supply it when you run: --env " + v.name +
                           "=VALUE (or export it: it is read as a secret)");
      if (secret_names_.insert(v.name).second) spec_.secrets.push_back({v.name, false, v.pos});
      continue;
    }
    if (v.value && secret_names_.contains(v.name)) {
      // Left null in an earlier task: one name is either a value in the file or a secret.
      problems_.add(v.pos, path,
                    "left null (supplied when you run) in an earlier task; burst runs the chain "
                    "with one environment: give it once");
      continue;
    }
    std::string value = v.value.value_or("");
    auto [it, fresh] = spec_.env.emplace(v.name, value);
    if (!fresh && it->second != value)
      problems_.add(v.pos, path,
                    "set to \"" + it->second +
                        "\" in an earlier task; burst runs the chain with "
                        "one environment: use the same value");
  }
  for (const SkyValue& s : task.secrets) {
    std::string path = "secrets." + s.name;
    if (spec_.env.contains(s.name)) {
      if (s.value || !options_.env.contains(s.name))
        problems_.add(s.pos, path, s.name + " is also set in envs; give it once");
      continue;
    }
    if (s.value && secret_names_.contains(s.name)) {
      // Also left null (envs or an earlier task's secrets): a value here would make it both.
      problems_.add(s.pos, path,
                    s.name + " is also left null (supplied when you run); give it once");
      continue;
    }
    if (s.value) {
      spec_.env[s.name] = *s.value;
      problems_.note(s.pos, path,
                     "has a value in the file: passed as env (burst reads secrets from your "
                     "environment; leave it null to keep it out of the file)");
    } else if (!options_.env.contains(s.name) && secret_names_.insert(s.name).second) {
      spec_.secrets.push_back({s.name, false, s.pos});
    }
  }
}

void Assembler::mounts(const SkyTask& main) {
  bool outside = false;
  for (const SkyMount& m : main.mounts) {
    std::string path = "file_mounts." + m.remote;
    const char* home = std::getenv("HOME");
    const bool tilde = m.local == "~" || m.local.starts_with("~/");
    fs::path local = tilde && home && *home ? fs::path(std::string(home) + m.local.substr(1))
                                            : fs::path(spec_.dir) / m.local;
    local = local.lexically_normal();
    std::error_code ec;
    if (!fs::exists(local, ec)) {
      problems_.add(m.pos, path, "source not found: " + local.string());
      continue;
    }
    fs::path rel = spec_.code.dir.empty() ? fs::path() : local.lexically_relative(spec_.code.dir);
    if (rel.empty() || *rel.begin() == "..") {  // outside workdir: synced with it (code.add)
      const std::string name = local.filename().empty() ? "root" : local.filename().string();
      rel = fs::path(".burst-add") / std::to_string(spec_.code.add.size()) / name;
      spec_.code.add.push_back({local.string(), rel.string(), m.pos});
      outside = true;
    }
    std::string dst = shell_path(m.remote);
    // setup starts in the synced code dir, so the source is relative to it. On the local cloud
    // the source may be the target itself (a home file mounted at its own path): left as it is.
    mount_script_ += "mkdir -p \"$(dirname " + dst + ")\" && { [ " + quote(rel.string()) + " -ef " +
                     dst + " ] || cp -a " + quote(rel.string()) + " " + dst + "; }\n";
  }
  if (!mount_script_.empty())
    problems_.note(main.mounts.front().pos, "file_mounts",
                   outside ? "copied into place before setup; sources outside workdir are synced "
                             "with it under .burst-add/ (on the volume, like the code)"
                           : "copied from the synced workdir into place before setup");
}

void Assembler::buckets(const SkyTask& main) {
  if (main.buckets.empty()) return;
  bucket_scripts_ = bucket_scripts(main.buckets, shell_path);
  std::set<std::string> schemes;
  for (const SkyBucket& b : main.buckets) {
    const std::string scheme = bucket_scheme(b.url);
    const std::string path = "file_mounts." + b.remote;
    if (scheme == "https" || scheme == "http") {
      problems_.note(b.pos, path,
                     b.mode == BucketMode::kCopy
                         ? "downloaded onto the pod with rclone before setup"
                         : "a web file cannot be mounted: downloaded onto the pod with rclone "
                           "before setup");
    } else if (b.mode == BucketMode::kCopy) {
      problems_.note(b.pos, path,
                     "copied from " + b.url + " onto the pod with rclone before setup");
    } else {
      problems_.note(b.pos, path,
                     "mounted from " + b.url +
                         " with rclone where the pod allows FUSE; elsewhere copied in before "
                         "setup and copied back when run ends (the job's log says which)");
    }
    if (!schemes.insert(scheme).second) continue;
    std::string names;
    for (const std::string& name : bucket_secret_names(scheme)) {
      names += (names.empty() ? "" : ", ") + name;
      if (spec_.env.contains(name) || !secret_names_.insert(name).second) continue;
      spec_.secrets.push_back({name, true, b.pos});
    }
    if (!names.empty())
      problems_.note(b.pos, path,
                     "credentials for " + scheme + ":// come from your shell when set: " + names +
                         " (optional secrets: passed to the pod, never logged)");
  }
}

void Assembler::skypilot_env(const SkyTask& main) {
  const Resources& r = spec_.resources;
  int gpus = main.resources.has_accelerators ? r.gpu_count : 0;
  // As SkyPilot sets them on each node. One node: the head, rank 0, in env. Several: one worker
  // per node, and the per-node values come from the worker's index (sky_node_preamble).
  spec_.env.emplace("SKYPILOT_NUM_NODES", std::to_string(info_.nodes));
  spec_.env.emplace("SKYPILOT_NUM_GPUS_PER_NODE", std::to_string(gpus));
  if (info_.nodes > 1) return;
  spec_.env.emplace("SKYPILOT_NODE_RANK", "0");
  spec_.env.emplace("SKYPILOT_NODE_IPS", "127.0.0.1");
}

// With num_nodes > 1, the first lines of each script: SkyPilot's per-node variables from the
// worker's own index. burst's workers are independent pods that cannot reach each other, so
// SKYPILOT_NODE_IPS has one line per node (as SkyPilot's has), each 127.0.0.1: right for the
// node's own line, and naming no other node (docs/pipeline-spec.md#skypilot).
std::string sky_node_preamble(int nodes, const std::string& script) {
  if (nodes <= 1 || script.empty()) return script;
  const std::string n = std::to_string(nodes);
  return "# SkyPilot's per-node variables: this worker is node $BURST_WORKER_INDEX of " + n +
         "\nexport SKYPILOT_NODE_RANK=\"${BURST_WORKER_INDEX:-0}\"\n"
         "export SKYPILOT_NODE_IPS=\"$(yes 127.0.0.1 | head -n " +
         n + ")\"\n" + script;
}

bool sky_mentions(const SkyTask& t, std::string_view word) {
  return t.setup.find(word) != std::string::npos ||
         (t.run && t.run->find(word) != std::string::npos);
}

std::string Assembler::chained(const SkyTask& task, size_t index) const {
  std::string label = task.name.empty() ? "task " + std::to_string(index + 1) : task.name;
  std::string text =
      "# SkyPilot task " + label + " (line " + std::to_string(task.pos.line) + ")\n(\n";
  if (!task.setup.empty()) text += task.setup + "\n";
  if (task.run) text += *task.run + "\n";
  return text + ")\n";
}

void Assembler::run(std::vector<SkyTask>& tasks, const std::string& chain_name,
                    SourcePos chain_pos) {
  // The GPU task is the run step; tasks before it run first on the GPU pod, tasks after it are
  // the upload step (a CPU pod, once the GPU pod is gone).
  size_t main = tasks.size();
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!tasks[i].resources.has_accelerators) continue;
    if (main == tasks.size()) {
      main = i;
    } else {
      problems_.add(tasks[i].resources.pos, "resources.accelerators",
                    "not supported: a second GPU task; burst runs one GPU step per pipeline: "
                    "split the chain into two files");
      return;
    }
  }
  if (main == tasks.size()) main = 0;
  const SkyTask& m = tasks[main];
  name(m, chain_name, chain_pos);
  spec_.resources = m.resources.resources;
  if (!spec_.resources.gpu_counts.empty()) {
    std::string each;
    for (const auto& [gpu, count] : spec_.resources.gpu_counts)
      each += (each.empty() ? "" : ", ") + gpu + " x" + std::to_string(count);
    problems_.note(m.resources.pos, "resources.accelerators",
                   "choices of different GPU counts: each priced at its own count (" + each +
                       "; resources.gpu_counts)");
  }
  info_.nodes = m.num_nodes;
  if (m.num_nodes > 1) {
    const std::string n = std::to_string(m.num_nodes);
    spec_.resources.workers = m.num_nodes;
    problems_.note(m.num_nodes_pos, "num_nodes",
                   n + " workers (resources.workers: " + n +
                       "), one pod each, each running setup and run with SKYPILOT_NODE_RANK "
                       "= its index");
    if (sky_mentions(m, "SKYPILOT_NODE_IPS"))
      problems_.note(m.num_nodes_pos, "num_nodes",
                     "burst's workers are independent pods that cannot reach each other: "
                     "SKYPILOT_NODE_IPS lists 127.0.0.1 for every node, so a program that "
                     "connects its nodes (torchrun --nnodes, mpirun) will not; use num_nodes: 1 "
                     "with more GPUs, or split the work by SKYPILOT_NODE_RANK");
  }
  if (m.resources.image) {
    spec_.image = *m.resources.image;
  } else {
    problems_.note(m.pos, "image_id",
                   "none given: burst runs its default image " + spec_.image + " (" +
                       kDefaultImageHolds +
                       "); give image_id: docker:IMAGE when setup or run needs more");
  }
  if (std::string why = runs_until_stopped(m); !why.empty() && !options_.max_runtime_seconds) {
    spec_.budget.max_runtime_seconds = kDefaultServerRuntimeSeconds;
    spec_.budget.max_runtime_default_why = "the task would run until stopped: " + why;
    problems_.note(m.pos, "budget.max_runtime",
                   "4 h by default: " + why +
                       ", so burst stops it after 4 h rather than bill until someone notices; "
                       "to change it, give --max-runtime DURATION (or burst convert the file "
                       "and set budget.max_runtime)");
  }
  // SkyPilot's disk_size is the VM's OS disk: the pod's own disk here, not the kept volume.
  if (m.resources.disk_size_gb) spec_.resources.disk_gb = *m.resources.disk_size_gb;
  if (m.volume) {
    spec_.volume.mount = m.volume->first;
    spec_.volume.name = m.volume->second;
  }
  code(m);
  for (const SkyTask& t : tasks) values(t);
  mounts(m);
  buckets(m);
  skypilot_env(m);
  // SkyPilot sets its SKYPILOT_* variables itself: a secret of that name would be both.
  for (const SecretRef& r : spec_.secrets)
    if (spec_.env.contains(r.name))
      problems_.add(r.pos, r.name, "SkyPilot sets " + r.name + " itself; use another name");
  std::string before;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const SkyTask& t = tasks[i];
    if (i == main) continue;
    if (t.workdir && (!m.workdir || *t.workdir != *m.workdir))
      problems_.add(t.workdir_pos, "workdir",
                    "not supported: a chained task with its own workdir; burst syncs one");
    if (!t.mounts.empty() || !t.buckets.empty() || t.volume || t.num_nodes > 1)
      problems_.add(t.pos, "(task)",
                    "not supported in a chained task: file_mounts, volumes or num_nodes; move "
                    "them to the GPU task");
    if (i < main) {
      before += chained(t, i);
      problems_.note(t.pos, "(task)",
                     "a CPU task before the GPU task runs on the GPU pod before setup (burst has "
                     "no CPU step ahead of the GPU step)");
    } else {
      if (!spec_.upload) spec_.upload = UploadSpec{t.resources.image.value_or(spec_.image), ""};
      spec_.upload->run += chained(t, i);
      problems_.note(t.pos, "(task)",
                     "a task after the GPU task becomes the upload step: a CPU pod once the GPU "
                     "pod is gone (hand-off)");
    }
  }
  spec_.setup =
      sky_node_preamble(m.num_nodes, bucket_scripts_.setup + mount_script_ + before + m.setup);
  std::string run = "true";
  if (m.run && m.run->find_first_not_of(" \t\r\n") != std::string::npos)
    run = *m.run;
  else
    problems_.note(m.pos, "run", "no run commands: burst runs setup only");
  spec_.run = sky_node_preamble(m.num_nodes, run_then(run, bucket_scripts_.run_end));
  if (spec_.upload) spec_.upload->run = sky_node_preamble(m.num_nodes, spec_.upload->run);
  // No workload facts in a SkyPilot file: price x an assumed run time.
  spec_.workload.kind = "custom";
  spec_.workload.reference = WorkloadReference{kThisMachineGpu, kAssumedRunSeconds, ""};
  problems_.note(m.pos, "workload",
                 "a SkyPilot file has no workload facts: the plan prices each offer as its "
                 "$/hour x 1 h, an assumed run time (burst convert, then set workload to model "
                 "it)");
}

}  // namespace

bool looks_like_skypilot(const std::vector<yaml::Node>& docs) {
  // A key only burst has wins: a burst spec with a typo ("envs") stays a burst spec.
  for (const yaml::Node& doc : docs)
    if (has_burst_keys(doc)) return false;
  for (const yaml::Node& doc : docs)
    if (has_sky_keys(doc)) return true;
  // Several documents: a SkyPilot chain of tasks.
  return docs.size() > 1;
}

void read_skypilot(const std::vector<yaml::Node>& docs, const SpecLoadOptions& options,
                   PipelineSpec& spec, Problems& problems, SpecReadInfo* info) {
  info->format = "skypilot";
  spec.from_skypilot = true;
  std::vector<SkyTask> tasks;
  std::string chain_name;
  SourcePos chain_pos;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].is_null()) continue;
    std::optional<SkyTask> task = read_sky_task(docs[i], options.providers, problems);
    if (!task) continue;
    // A chain may open with a document holding only its name.
    if (i == 0 && docs.size() > 1 && task->only_name) {
      chain_name = task->name;
      chain_pos = task->name_pos;
      continue;
    }
    tasks.push_back(std::move(*task));
  }
  if (tasks.empty()) {
    if (problems.empty()) problems.add({1, 1}, "(top level)", "no task in the file");
    return;
  }
  Assembler(options, spec, problems, *info).run(tasks, chain_name, chain_pos);
}

}  // namespace burst::spec
