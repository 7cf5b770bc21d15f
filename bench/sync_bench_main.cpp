// burst_sync_bench: runs burst's sync or pull once against an sshd the benchmark started, and
// prints one JSON line of counters. Built only on request (bench/sync_bench.py builds it):
//   burst_sync_bench sync HOST PORT USER KEY LOCAL_DIR REMOTE_DIR VOLUME
//   burst_sync_bench pull HOST PORT USER KEY PATTERN LOCAL_DIR WORKDIR
// The cipher comes from $BURST_SSH_CIPHERS, as for burst itself.
#include <chrono>
#include <cstdio>
#include <future>
#include <string>

#include "burst/clock.h"
#include "burst/remote.h"
#include "sync/artefact_pull.h"
#include "sync/code_sync.h"

using namespace burst;

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: see bench/sync_bench_main.cpp\n");
    return 2;
  }
  const std::string mode = argv[1];
  SshTarget target{argv[2], std::stoi(argv[3]), argv[4], argv[5], ""};
  auto connector = make_libssh_connector();
  const auto t0 = std::chrono::steady_clock::now();
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  // The sync's local scan runs beside the connect and the pod's listing, as in `burst run`, which
  // scans while it plans, long before the pod is up.
  double scan_s = 0;
  std::shared_future<Result<ScanResult>> scan;
  if (mode == "sync")
    scan = std::async(std::launch::async, [&] {
             CodeSpec code;
             code.dir = argv[6];
             auto r = scan_code_dir(code);
             scan_s = secs(t0, std::chrono::steady_clock::now());
             return r;
           }).share();
  auto session = connector->connect(target);
  if (!session.ok()) {
    if (scan.valid()) scan.wait();
    std::fprintf(stderr, "%s\n", session.error().message.c_str());
    return 1;
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (mode == "sync") {
    double wait_s = 0;
    auto local = [&]() -> Result<const ScanResult*> {
      const auto w = std::chrono::steady_clock::now();
      const Result<ScanResult>& r = scan.get();
      wait_s = secs(w, std::chrono::steady_clock::now());
      if (!r.ok()) return r.error();
      return &*r;
    };
    const std::string remote = argv[7];
    auto stats = sync_code(**session, local, {remote, manifest_path_for(argv[8], remote)}, {});
    const auto t3 = std::chrono::steady_clock::now();
    if (!stats.ok()) {
      std::fprintf(stderr, "%s\n", stats.error().message.c_str());
      return 1;
    }
    // scan_s runs from the start, beside connect_s and sync_s; scan_wait_s is how long the sync
    // then still waited for it.
    std::printf(
        "{\"connect_s\": %.3f, \"scan_s\": %.3f, \"scan_wait_s\": %.3f, \"sync_s\": %.3f, "
        "\"total_s\": %.3f, \"files_sent\": %lld, \"bytes_sent\": %lld, \"round_trips\": %lld, "
        "\"method\": \"%s\"}\n",
        secs(t0, t1), scan_s, wait_s, secs(t1, t3), secs(t0, t3),
        static_cast<long long>(stats->files_sent), static_cast<long long>(stats->bytes_sent),
        static_cast<long long>(stats->round_trips), stats->method.c_str());
    return 0;
  }
  if (mode == "pull") {
    auto r = pull_artefacts(**session, {{argv[6], argv[7], {}}}, argv[8], argv[8], {});
    const auto t2 = std::chrono::steady_clock::now();
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.error().message.c_str());
      return 1;
    }
    std::printf(
        "{\"connect_s\": %.3f, \"pull_s\": %.3f, \"files\": %lld, \"bytes\": %lld, "
        "\"failed\": %zu}\n",
        secs(t0, t1), secs(t1, t2), static_cast<long long>(r->files),
        static_cast<long long>(r->bytes), r->failed.size());
    return r->failed.empty() ? 0 : 1;
  }
  return 2;
}
