// burst-fakecloud: the cloud emulators as a program, for trying burst against "RunPod" etc.
// without an account. Point a provider's base_url at http://127.0.0.1:<port>/<provider>.
//
//   burst-fakecloud --port 8700 --state-dir /tmp/fc --boot-delay 2 --providers runpod
//
// Keys: when RUNPOD_API_KEY (LAMBDA_API_KEY, VAST_API_KEY) is set in the emulator's environment,
// only that key is accepted; otherwise any bearer token is. Keys never go on the command line.
// Faults: POST /_fake/faults?provider=runpod with a JSON body; state: GET /_fake/state.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "fake_cloud.h"

namespace {

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

int usage(const char* why) {
  std::cerr << "burst-fakecloud: " << why << "\n"
            << "usage: burst-fakecloud [--port N] [--state-dir DIR] [--boot-delay SECONDS]\n"
            << "                       [--providers runpod,lambda,vast]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace burst;
  using namespace burst::fakecloud;
  int port = 0;
  std::string state_dir;
  double boot_delay = 0;
  std::vector<std::string> providers;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--port") {
      port = std::atoi(next().c_str());
    } else if (a == "--state-dir") {
      state_dir = next();
    } else if (a == "--boot-delay") {
      boot_delay = std::atof(next().c_str());
    } else if (a == "--providers") {
      std::stringstream ss(next());
      for (std::string p; std::getline(ss, p, ',');)
        if (!p.empty()) providers.push_back(p);
    } else if (a == "--help" || a == "-h") {
      return usage("the cloud emulators (RunPod v2, ...) on 127.0.0.1"), 0;
    } else {
      return usage(("unknown argument " + a).c_str());
    }
  }
  if (state_dir.empty())
    state_dir =
        (std::filesystem::temp_directory_path() / ("burst-fakecloud-" + std::to_string(getpid())))
            .string();
  EmulatorOptions o;
  o.state_dir = state_dir;
  o.boot_delay = Duration(static_cast<int64_t>(boot_delay * 1000));
  for (const char* p : {"runpod", "lambda", "vast"}) {
    std::string var = std::string(p) + "_API_KEY";
    for (auto& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* k = std::getenv(var.c_str())) o.api_keys[p] = k;
  }
  SystemClock clock;
  FakeCloud cloud(o, clock, providers);
  Status st = cloud.start("127.0.0.1", port);
  if (!st.ok()) {
    std::cerr << st.error().message << "\n";
    return 1;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  std::cout << "burst-fakecloud listening on " << cloud.base_url() << " (state " << state_dir
            << ")\n"
            << std::flush;
  while (!g_stop && cloud.running()) usleep(100 * 1000);
  cloud.stop();
  return 0;
}
