// A pod that is a directory on this machine, for in-process runner tests: ShellPodConnector's
// sessions run each command with /bin/sh -c here (HOME=<root>/home, BURST_VOLUME=<root>/volume,
// so the runner's supervisor, sync and pull scripts run for real, without sshd) and do their file
// calls on local paths. Knobs make the link misbehave: refuse every connect (no SSH), fail the
// commands a predicate picks, or break the link for every session at once (a lost connection).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "burst/remote.h"

namespace burst {

class ShellPodConnector : public RemoteConnector {
 public:
  explicit ShellPodConnector(std::string root);  // creates <root>/home and <root>/volume

  // --- Knobs -----------------------------------------------------------------------------------
  std::atomic<bool> refuse{false};  // every connect fails with kConnection
  std::atomic<bool> broken{false};  // every call of every session fails with kConnection
  // An error for a command (exec or open_stream) before it runs, or nullopt to run it. Set it
  // before the job starts (it is read from the job's thread).
  std::function<std::optional<Error>(const std::string& command)> fail_command;

  // --- Record ----------------------------------------------------------------------------------
  int connects() const { return connects_.load(); }
  std::vector<std::string> commands() const;  // every command run, in order

  const std::string& root() const { return root_; }
  std::string volume() const { return root_ + "/volume"; }

  Result<std::unique_ptr<RemoteSession>> connect(SshTarget& target) override;

  // For the sessions.
  std::optional<Error> check(const std::string& command);
  std::vector<std::string> environment() const;

 private:
  std::string root_;
  std::atomic<int> connects_{0};
  mutable std::mutex mu_;
  std::vector<std::string> commands_;
};

}  // namespace burst
