// burstd: runs pipelines on their schedules and serves the local API (docs/daemon.md).
//   burstd [--config FILE] [--check]
// Signals: SIGTERM/SIGINT drain (a second one cancels running jobs, deleting their pods),
// SIGHUP reloads the pipelines. Logs go to stderr and to a rotating file.
#include <signal.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "daemon/daemon.h"
#include "daemon/pipelines.h"
#include "daemon/real_job_launcher.h"
#include "registry.h"
#include "util/fault_point.h"

namespace {

using namespace burst;
using namespace burst::daemon;

std::shared_ptr<spdlog::logger> make_logger(const DaemonConfig& c) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(c.log_file).parent_path(), ec);
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  // The log is the user's only, like job logs: each file (rotated ones too) is made 0600 the
  // moment spdlog opens it, whatever the umask.
  spdlog::file_event_handlers private_files;
  private_files.after_open = [](const spdlog::filename_t&, std::FILE* f) {
    if (f) (void)::fchmod(::fileno(f), 0600);
  };
  try {
    sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
        c.log_file, static_cast<size_t>(c.log_max_mb) * 1024 * 1024,
        static_cast<size_t>(c.log_files), /*rotate_on_open=*/false, private_files));
  } catch (const spdlog::spdlog_ex& e) {
    std::cerr << "burstd: warning: cannot log to " << c.log_file << ": " << e.what() << "\n";
  }
  auto logger = std::make_shared<spdlog::logger>("burstd", sinks.begin(), sinks.end());
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ burstd[%P] %v", spdlog::pattern_time_type::utc);
  logger->flush_on(spdlog::level::info);
  return logger;
}

// The clouds the reconciler asks: every driver in this build with credentials (as `burst reap`).
std::vector<std::string> reachable_providers(const Config& config) {
  std::vector<std::string> names;
  for (const auto& e : provider_table()) {
    auto c = config.clouds.find(e.name);
    if (c != config.clouds.end() && c->second.api_key.empty()) continue;
    if (!e.make) continue;
    names.push_back(e.name);
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // glibc gives each thread that allocates its own arena (up to 8 per core), and burstd has ~20
  // threads (socket workers, jobs): a dashboard's burst of requests left ~9 MiB of free arena
  // pages resident. Two arenas keep idle burstd under 25 MiB RSS (docs/dashboard.md).
  mallopt(M_ARENA_MAX, 2);
#endif
  CLI::App app{"burstd: runs burst pipelines on their schedules; local API on a Unix socket"};
  app.set_version_flag("--version", std::string("burstd ") + BURST_VERSION);
  std::string config_path;
  bool check = false;
  app.add_option("-c,--config", config_path, "burstd.yaml (default: <config dir>/burstd.yaml)");
  app.add_flag("--check", check, "load the config and pipelines, print the schedule, exit");
  CLI11_PARSE(app, argc, argv);

  auto env = environment_map();
  auto config = load_daemon_config(config_path, env);
  if (!config) {
    std::cerr << "burstd: " << config.error().message << "\n";
    return 3;
  }
  if (check) {
    PipelineLoad load = load_pipelines(*config);
    for (const auto& e : load.errors) std::cerr << e << "\n";
    for (const auto& p : load.scheduled) {
      auto next = p.cron.next_fire(std::chrono::system_clock::now(), p.zone);
      std::cout << p.spec.name << ": \"" << p.cron.text() << "\" " << p.zone.name() << ", next "
                << (next ? format_utc(*next) : "never") << "\n";
    }
    return load.errors.empty() ? 0 : 3;
  }

  // Signals are taken by sigwait below, never by a handler: block them before any thread starts.
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // Job logs, reports, the database and keys: this user's only, or burstd does not start.
  if (Status priv = make_private_dirs(config->burst); !priv.ok()) {
    std::cerr << "burstd: " << priv.error().message << "\n";
    return 3;
  }
  auto logger = make_logger(*config);
  auto log = [logger](const std::string& line) { logger->info(line); };
  auto store = open_store(config->burst.store_url, config->burst.db_path);
  if (!store) {
    logger->error("cannot open the store: " + store.error().message);
    return 3;
  }
  SystemClock clock;
  // The chaos matrix's fault hook (docs/chaos.md), installed here and handed to every job.
  const auto it_fault = env.find("BURST_FAULT");
  const auto faults = make_env_fault_hook(it_fault == env.end() ? "" : it_fault->second);
  RealJobLauncher launcher(**store, clock, config->burst, env, log);
  const Config& burst_config = config->burst;
  DaemonDeps deps{clock,
                  **store,
                  launcher,
                  reachable_providers(config->burst),
                  [&burst_config, &clock](const std::string& name) {
                    return make_provider(name, burst_config, clock);
                  },
                  log};
  Daemon daemon(*config, deps);
  launcher.set_caps([&daemon](const std::string& id) { return daemon.caps_for(id); });
  launcher.set_reserve_estimate(
      [&daemon](const std::string& id, const PipelineSpec& spec, double usd, bool* never) {
        return daemon.ledger().reserve_estimate(id, spec, usd, never);
      });
  launcher.set_faults(faults.get());
  logger->info("burstd " + std::string(BURST_VERSION) + " starting; state " +
               config->burst.state_dir + (config->file.empty() ? "" : "; config " + config->file));
  if (Status st = daemon.start(); !st.ok()) {
    logger->error(st.error().message);
    daemon.stop();
    return st.error().code == ErrorCode::kInvalid ? 3 : 1;
  }

  std::thread drainer;
  bool draining = false;
  while (true) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == SIGHUP) {
      logger->info("SIGHUP: reloading " + (config->file.empty() ? "the config" : config->file));
      auto fresh = load_daemon_config(config_path, env);
      if (!fresh)
        logger->error("reload: " + fresh.error().message + "; kept the previous config");
      else
        (void)daemon.reload(*fresh);
    } else if (sig == SIGUSR1 && draining) {
      break;  // the drainer is done
    } else if ((sig == SIGTERM || sig == SIGINT) && !draining) {
      draining = true;
      logger->info("signal " + std::to_string(sig) +
                   ": draining (no new jobs; running ones finish; send it again to cancel them)");
      drainer = std::thread([&daemon] {
        daemon.drain();
        kill(getpid(), SIGUSR1);
      });
    } else if (sig == SIGTERM || sig == SIGINT) {
      logger->info("second signal: cancelling running jobs; their pods are deleted");
      daemon.scheduler().interrupt_all();  // the drainer sees them end
    }
  }
  drainer.join();
  daemon.stop();
  logger->info("burstd stopped; no job is running");
  return 0;
}
