// Your own hosts (the `ssh` provider): what burst runs on a host and how it reads the answers.
// Everything a host prints is untrusted input (tests/fuzz/own_host_probe_fuzz.cpp): read
// defensively, bounded, printable text only.
//
// On the host, under its work dir W (config.yaml providers.ssh.hosts[].work_dir, ~/.burst):
//   W/lock/          the host's one lock, taken atomically with mkdir; W/lock/pod holds the pod
//                    name of the job holding it (burst-i<installation>-<job>-<role>),
//                    W/lock/volume the name of the volume it was created with
//   W/jobs/<pod>/    the pod: the job's own dir ($BURST_POD_DIR: step scripts, pids, logs)
//   W/volumes/<v>/   a volume: outlives every job
#pragma once

#include <string>
#include <vector>

#include "burst/result.h"

namespace burst::ownhost {

// One line of `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader`.
struct ProbedGpu {
  std::string name;       // as nvidia-smi prints it: "NVIDIA GeForce RTX 4090"
  double memory_mib = 0;  // "24564 MiB"; 0 when the host printed no number ("[N/A]")
};

// What one probe of a host learned.
struct HostProbe {
  std::vector<ProbedGpu> gpus;  // empty: no NVIDIA GPU (or no nvidia-smi)
  std::string gpu_error;        // nvidia-smi's complaint, printable and short; "" when none
  std::string lock_holder;      // the pod name in W/lock/pod; "" when the host is free
  bool locked = false;          // W/lock exists (a holder may not have written its name yet)
  std::string lock_volume;      // W/lock/volume: the holder's volume ("" when none, or unsafe)
  std::string work_dir;         // W as an absolute path on the host
};

// At most this many GPUs a host, this many bytes of a name, and of a holder's name.
inline constexpr size_t kMaxGpus = 64;
inline constexpr size_t kMaxName = 96;

// The shell text for W as the host's shell expands it: "~" and "~/x" become "$HOME" and
// "$HOME"/'x'; anything else one quoted word.
std::string work_dir_word(const std::string& work_dir);

// Parses nvidia-smi's CSV (no header). Lines that are not "<name>, <number> MiB" are refused with
// kRemoteFailed naming the first bad line (printable, shortened); empty output is no GPU.
Result<std::vector<ProbedGpu>> parse_nvidia_smi(const std::string& csv);

// The command that probes a host: its GPUs, its lock, the absolute work dir, framed by marker
// lines so one part's output cannot pose as another's.
std::string probe_command(const std::string& work_dir);
// Reads probe_command's answer. kRemoteFailed when a marker is missing.
Result<HostProbe> parse_probe(const std::string& out);

// The catalog name (config/gpus.yaml) for what nvidia-smi calls a GPU: "NVIDIA GeForce RTX 4090"
// -> "RTX_4090", "NVIDIA A100-SXM4-80GB" -> "A100_80GB", "NVIDIA H100 80GB HBM3" -> "H100_SXM".
// Names outside the table are upper-cased with "_" for every other character (as Vast's are).
std::string catalog_gpu_name(const std::string& smi_name, double memory_mib);

// Takes the host's lock for `pod_name` and makes the job's dir and the volume's dir. Prints
// "locked\n<abs W>\n" when taken (or already held by this pod: a retried create), else
// "held\n<holder>\n". Names must be safe_name()s.
std::string lock_command(const std::string& work_dir, const std::string& pod_name,
                         const std::string& volume);
// Stops every process of the pod (the process group in each W/jobs/<pod>/*.pid, TERM then KILL),
// removes its dir, and releases the lock when this pod holds it. Keeps the volumes. Prints
// "released\n" at its end; run again it does nothing more.
std::string release_command(const std::string& work_dir, const std::string& pod_name);

// Whether `name` may name a host, a pod or a volume dir: 1-96 of [A-Za-z0-9._-], not starting
// with "." or "-".
bool safe_name(const std::string& name);

}  // namespace burst::ownhost
