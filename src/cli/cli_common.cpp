#include "cli/cli_common.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "burst/gpu_catalog.h"
#include "cli/live_status.h"
#include "cli/run_flags.h"
#include "cli/table.h"
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
// said reaches the terminal with its colours but without its other escape sequences. With a live
// status (cli/live_status.h), a thread redraws it once a second at the foot of the terminal; every
// write holds one mutex, since a wide job's workers and that thread write at once.
class TerminalConsole : public Console {
 public:
  TerminalConsole(bool quiet, std::optional<double> live_usd_per_hour)
      : quiet_(quiet), tty_(isatty(2)) {
    if (!live_usd_per_hour || !tty_ || quiet_) return;
    live_.emplace(*live_usd_per_hour);
    ticker_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mu_);
      while (!stop_) {
        draw_status();
        tick_.wait_for(lock, std::chrono::seconds(1));
      }
    });
  }
  ~TerminalConsole() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      clear_progress();
    }
    tick_.notify_all();
    if (ticker_.joinable()) ticker_.join();
  }

  void line(const std::string& text) override {
    std::lock_guard<std::mutex> lock(mu_);
    clear_progress();
    if (!quiet_) std::cout << terminal_safe(text) << std::endl;
    draw_status();
  }
  void phase_started(std::optional<int> worker, Phase phase) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (live_) live_->on_phase(worker, phase, now_s());
  }
  void remote_out(const std::string& l) override {
    std::lock_guard<std::mutex> lock(mu_);
    // A progress report feeds the status line instead of scrolling by.
    if (live_ && live_->on_output(l)) {
      draw_status();
      return;
    }
    clear_progress();
    if (!quiet_) std::cout << "  | " << terminal_safe(l) << std::endl;
    draw_status();
  }
  void remote_err(const std::string& l) override {
    std::lock_guard<std::mutex> lock(mu_);
    clear_progress();
    if (!quiet_) std::cerr << "  ! " << terminal_safe(l) << std::endl;
    draw_status();
  }
  void progress(const std::string& text) override {
    if (!tty_ || quiet_) return;
    std::lock_guard<std::mutex> lock(mu_);
    std::cerr << "\r\033[K" << terminal_safe(text) << std::flush;
    progress_shown_ = true;
  }
  bool confirm(const std::string& question) override {
    if (!isatty(0)) return false;
    std::lock_guard<std::mutex> lock(mu_);
    clear_progress();
    std::cerr << question << " [y/N] " << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    return answer == "y" || answer == "Y" || answer == "yes";
  }

 private:
  double now_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void draw_status() {  // mu_ held
    if (!live_ || stop_) return;
    if (std::optional<std::string> s = live_->render(now_s())) {
      std::cerr << "\r\033[K" << *s << std::flush;
      progress_shown_ = true;
    }
  }
  void clear_progress() {
    if (progress_shown_) std::cerr << "\r\033[K" << std::flush;
    progress_shown_ = false;
  }
  bool quiet_;
  bool tty_;
  bool progress_shown_ = false;
  std::optional<LiveStatus> live_;
  std::mutex mu_;
  std::condition_variable tick_;
  bool stop_ = false;
  std::thread ticker_;
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
  return std::make_unique<TerminalConsole>(quiet, std::nullopt);
}

std::unique_ptr<Console> make_run_console(bool quiet, double usd_per_hour) {
  return std::make_unique<TerminalConsole>(quiet, usd_per_hour);
}

void print_plan_lines(const std::vector<std::string>& lines, std::ostream& out) {
  for (const std::string& line : lines) out << wrap_line(line, 11);
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
