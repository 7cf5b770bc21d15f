// `burst logs JOB [-f]`: the job's log from the state dir (<state dir>/logs/JOB.log, written by
// the job runner whether `burst run` or burstd ran it), so no daemon is needed; with -f it keeps
// printing until the store records the job's end. A job whose log is not in this state dir is
// asked of burstd (its state dir may be another), when a burstd socket exists.
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/job_json.h"
#include "client/daemon_client.h"

namespace burst {
namespace {

constexpr auto kFollowPoll = std::chrono::milliseconds(200);

// Prints the file from `*offset` to its current end; advances `*offset`.
void print_from(const std::string& path, std::streamoff* offset) {
  std::ifstream f(path, std::ios::binary);
  f.seekg(*offset);
  char buf[8192];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    std::cout.write(buf, f.gcount());
    *offset += f.gcount();
  }
  std::cout << std::flush;
}

// What was followed decides the exit: 0 the job succeeded, 1 it did not (as burstd's follow).
int exit_for_state(JobState state) {
  return state == JobState::kSucceeded ? kExitOk : kExitFailure;
}

// A recorded owner that has been gone this long without the end recorded: burstd restarting
// adopts its jobs within this time, else nothing will record the end (burst reap does).
constexpr int kOwnerGonePolls = 25;

int follow(const std::string& path, Store* store, const std::string& id) {
  std::streamoff offset = 0;
  int gone_polls = 0;
  for (;;) {
    // The record is read before the file: a job that ended has written its whole log by then.
    auto job = store ? store->get_job(id) : Result<JobRecord>(make_error(ErrorCode::kNotFound, ""));
    // A runner that died never records the end (burst reap does): stop once it stays gone.
    const bool owner_gone = job.ok() && job->owner_pid > 0 &&
                            kill(static_cast<pid_t>(job->owner_pid), 0) != 0 && errno == ESRCH;
    gone_polls = owner_gone ? gone_polls + 1 : 0;
    const bool ended = !job.ok() || job->finished_ms != 0 || gone_polls >= kOwnerGonePolls;
    print_from(path, &offset);
    if (ended) {
      if (!job.ok()) return kExitOk;  // not in the store: nothing to wait for
      std::cout << "job " << id << " " << to_string(job->state)
                << (job->error.empty() ? "" : ": " + job->error)
                << (job->finished_ms == 0 ? " (its runner is gone; burst reap ends it)" : "")
                << std::endl;
      return exit_for_state(job->state);
    }
    std::this_thread::sleep_for(kFollowPoll);
  }
}

}  // namespace

int cmd_logs(const DaemonArgs& given) {
  DaemonArgs args = given;
  std::string& id = args.target;
  if (!id.empty() && (id.find('/') != std::string::npos || id[0] == '.'))
    return fail(kExitUsage, "logs: \"" + id + "\" is not a job id (burst jobs lists them)");
  auto config = load_config_or_print();
  if (!config.ok()) return fail(config.error(), ErrorOrigin::kConfig);
  std::error_code ec;
  if (id.empty()) {  // the latest job in the state dir
    if (!std::filesystem::exists(config->db_path, ec) && config->store_url.empty())
      return fail(kExitNotFound, "no jobs yet (burst run FILE starts one)");
    auto opened = open_store(*config);
    if (!opened.ok()) return fail(opened.error(), ErrorOrigin::kConfig);
    auto latest = latest_job_id(**opened);
    if (!latest.ok()) return fail(latest.error());
    id = *latest;
  }
  const std::string path = config->logs_dir + "/" + id + ".log";
  if (!std::filesystem::exists(path, ec)) {
    const std::string socket = daemon::resolve_socket(args.socket);
    if (!args.socket.empty() || std::filesystem::exists(socket, ec)) return cmd_daemon_logs(args);
    return fail(kExitNotFound, "no log for job " + id + " in " + config->logs_dir +
                                   " (burst jobs lists the jobs)");
  }
  std::unique_ptr<Store> store;
  if (std::filesystem::exists(config->db_path, ec)) {
    auto opened = open_store(*config);
    if (!opened.ok()) return fail(opened.error(), ErrorOrigin::kConfig);
    store = std::move(*opened);
  }
  if (args.json) {
    std::ifstream f(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    nlohmann::json out = {
        {"job_id", id}, {"job", id}, {"source", "state dir"}, {"path", path}, {"log", text}};
    if (store)
      if (auto job = store->get_job(id); job.ok()) out["state"] = to_string(job->state);
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return kExitOk;
  }
  if (args.follow) return follow(path, store.get(), id);
  std::streamoff offset = 0;
  print_from(path, &offset);
  return kExitOk;
}

}  // namespace burst
