// burst_sync_bench: runs burst's sync or pull once against an sshd the benchmark started, and
// prints one JSON line of counters. Built only on request (bench/sync_bench.py builds it):
//   burst_sync_bench sync HOST PORT USER KEY LOCAL_DIR REMOTE_DIR VOLUME
//   burst_sync_bench pull HOST PORT USER KEY PATTERN LOCAL_DIR WORKDIR
// The cipher comes from $BURST_SSH_CIPHERS, as for burst itself.
#include <chrono>
#include <cstdio>
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
  auto session = connector->connect(target);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.error().message.c_str());
    return 1;
  }
  const auto t1 = std::chrono::steady_clock::now();
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  if (mode == "sync") {
    CodeSpec code;
    code.dir = argv[6];
    auto scan = scan_code_dir(code);
    if (!scan.ok()) {
      std::fprintf(stderr, "%s\n", scan.error().message.c_str());
      return 1;
    }
    const auto t2 = std::chrono::steady_clock::now();
    const std::string remote = argv[7];
    auto stats = sync_code(**session, *scan, {remote, manifest_path_for(argv[8], remote)}, {});
    const auto t3 = std::chrono::steady_clock::now();
    if (!stats.ok()) {
      std::fprintf(stderr, "%s\n", stats.error().message.c_str());
      return 1;
    }
    std::printf(
        "{\"connect_s\": %.3f, \"scan_s\": %.3f, \"sync_s\": %.3f, \"files_sent\": %lld, "
        "\"bytes_sent\": %lld, \"round_trips\": %lld, \"method\": \"%s\"}\n",
        secs(t0, t1), secs(t1, t2), secs(t2, t3), static_cast<long long>(stats->files_sent),
        static_cast<long long>(stats->bytes_sent), static_cast<long long>(stats->round_trips),
        stats->method.c_str());
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
