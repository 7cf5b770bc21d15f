#include "cli/cli_common.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iostream>

#include "burst/gpu_catalog.h"
#include "cli/run_flags.h"
#include "registry.h"
#include "util/terminal_text.h"

namespace burst {

std::atomic<int> g_interrupts{0};

namespace {

void on_signal(int) {
  int n = ++g_interrupts;
  const char* msg = n == 1 ? "\nburst: interrupted: stopping the remote command, pulling what "
                             "exists, then deleting the pod (Ctrl-C again to skip the pull)\n"
                           : "\nburst: skipping the pull; the pod is still deleted before exit\n";
  (void)!write(2, msg, std::strlen(msg));
}

// Every text is passed through terminal_safe (util/terminal_text.h) as it is written: what a pod
// said reaches the terminal with its colours but without its other escape sequences.
class TerminalConsole : public Console {
 public:
  explicit TerminalConsole(bool quiet) : quiet_(quiet), tty_(isatty(2)) {}

  void line(const std::string& text) override {
    clear_progress();
    if (!quiet_) std::cout << terminal_safe(text) << std::endl;
  }
  void remote_out(const std::string& l) override {
    clear_progress();
    if (!quiet_) std::cout << "  | " << terminal_safe(l) << std::endl;
  }
  void remote_err(const std::string& l) override {
    clear_progress();
    if (!quiet_) std::cerr << "  ! " << terminal_safe(l) << std::endl;
  }
  void progress(const std::string& text) override {
    if (!tty_ || quiet_) return;
    std::cerr << "\r\033[K" << terminal_safe(text) << std::flush;
    progress_shown_ = true;
  }
  bool confirm(const std::string& question) override {
    if (!isatty(0)) return false;
    clear_progress();
    std::cerr << question << " [y/N] " << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    return answer == "y" || answer == "Y" || answer == "yes";
  }

 private:
  void clear_progress() {
    if (progress_shown_) std::cerr << "\r\033[K" << std::flush;
    progress_shown_ = false;
  }
  bool quiet_;
  bool tty_;
  bool progress_shown_ = false;
};

}  // namespace

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // a closed terminal must not orphan a pod
  signal(SIGPIPE, SIG_IGN);
}

Result<Config> load_config_or_print() {
  auto config = load_config(environment_map(), all_provider_traits());
  if (config.ok())
    if (Status st = make_private_dirs(*config); !st.ok()) return st.error();
  return config;
}

Result<std::unique_ptr<Store>> open_store(const Config& config) {
  return open_store(config.store_url, config.db_path);
}

std::unique_ptr<Console> make_terminal_console(bool quiet) {
  return std::make_unique<TerminalConsole>(quiet);
}

int apply_plan_flags(PipelineSpec* spec, const std::vector<std::string>& providers,
                     const std::string& gpus, const Config& config, std::string* provider) {
  auto one = apply_provider_flag(spec, providers);
  if (!one.ok()) return fail(one.error());
  *provider = *one;
  if (gpus.empty()) return 0;
  auto catalog = load_gpu_catalog(config.config_dir);
  if (!catalog.ok()) return fail(catalog.error(), ErrorOrigin::kConfig);
  if (Status st = apply_gpus_flag(spec, gpus, *catalog); !st.ok()) return fail(st.error());
  return 0;
}

}  // namespace burst
