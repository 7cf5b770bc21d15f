// The built-in `local` cloud: no account, no GPU, every part real. A pod is an OpenSSH sshd that
// burst starts on 127.0.0.1 with a free port, a throwaway host key and the job's public key, and
// a directory of its own; a volume is a directory that outlives pods. A pod's processes are its
// sshd listener (whose title names the pod's sshd_config), everything descended from it (the
// per-connection sessions), and every process whose environment carries BURST_LOCAL_POD=<id>
// (the user's commands, including ones orphaned when their session died).
// TEST ONLY: with BURST_TEST_POD_SHIM=<absolute path> in the environment, each pod's sshd runs that
// program for every command (`ForceCommand`; the hostile-pod tests, docs/testing.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "burst/clock.h"
#include "burst/provider.h"

namespace burst {

struct LocalProviderConfig {
  std::string root;             // holds pods/ and volumes/
  std::string sshd_path;        // absolute; empty = search the usual places
  double gpu_usd_per_hour = 0;  // for accounting only; the local cloud is free by default
  double cpu_usd_per_hour = 0;
};

inline constexpr const char* kLocalPodEnv = "BURST_LOCAL_POD";

std::unique_ptr<Provider> make_local_provider(const LocalProviderConfig& config, Clock& clock);

// Every live process of the pod, from the process table: what delete stops and tests check.
std::vector<int> local_pod_processes(const std::string& pod_id);

// Absolute path of an sshd binary, or empty if none is installed.
std::string find_sshd();

}  // namespace burst
