// burstd's queue in the store (Store::add_queued ..., docs/daemon.md "The queue"): a job is a
// row from before `burst submit` returns until it ends, so a burstd killed with SIGKILL, drained
// with SIGTERM or restarted finds every job it accepted. The Scheduler keeps its in-memory queue
// for ordering and writes through this class; restore() hands a new burstd the jobs it owes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "burst/spec.h"
#include "burst/store.h"

namespace burst::daemon {

struct RestoredJob {
  std::string id;
  PipelineSpec spec;
  std::string reason;
  int64_t queued_ms = 0;
  std::string held_by;
};

class JobQueue {
 public:
  explicit JobQueue(Store& store) : store_(store) {}

  // Writes the job's row. `spec_text` is the spec's YAML; "" reads it from spec.path (a file
  // that cannot be read leaves it empty and a restart loads spec.path again).
  Status add(const std::string& id, const PipelineSpec& spec, const std::string& spec_text,
             const std::string& reason, int64_t queued_ms, const std::string& user = "");
  // Which cap keeps it waiting ("" none). Best effort: only `burst status` reads it.
  void hold(const std::string& id, const std::string& held_by);
  // The job ended (or was cancelled while queued). Best effort: a row left behind whose job has
  // a record is dropped by the next restore().
  void remove(const std::string& id);

  // The rows an earlier burstd left, oldest first: those whose job has a record were started
  // and those another daemon's live lease holds are skipped (the scheduler's claim takes them
  // over once their lease ends); those whose spec no longer parses are recorded as failed jobs
  // and dropped; the rest are queued again.
  std::vector<RestoredJob> restore(const std::function<void(const std::string&)>& log,
                                   int64_t now_ms);

 private:
  Store& store_;
};

}  // namespace burst::daemon
