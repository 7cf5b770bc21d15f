// burstd's queue (docs/daemon.md "The queue"). In the store (Store::add_queued ...), a job is a
// row from before `burst submit` returns until it ends, so a burstd killed with SIGKILL, drained
// with SIGTERM or restarted finds every job it accepted: JobQueue writes and reads those rows
// (store calls: its callers hold no lock). In memory, RunQueue keeps this daemon's view of the
// jobs waiting, oldest first, for `burst status` and the no-self-overlap rule (no store, no lock:
// the scheduler guards it).
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "burst/spec.h"
#include "burst/store.h"

namespace burst::daemon {

// A queued job: restored after a restart, loaded from another daemon's row, or submitted here.
struct QueuedJob {
  std::string id;
  PipelineSpec spec;
  std::string reason;
  int64_t queued_ms = 0;
  std::string held_by;  // why it may not start yet (a budget cap); "" otherwise
};
using RestoredJob = QueuedJob;

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

  // Records a job cancelled while queued (interrupted, nothing created) and removes its row.
  void record_cancelled(const QueuedJob& job, int64_t now_ms);
  // Whether the store's queue has a row for the job; false when the store cannot be read.
  bool contains(const std::string& id) const;

  // The rows an earlier burstd left, oldest first: those whose job has a record were started
  // and those another daemon's live lease holds are skipped (the scheduler's claim takes them
  // over once their lease ends); those whose spec no longer parses are recorded as failed jobs
  // and dropped; the rest are queued again.
  std::vector<RestoredJob> restore(const std::function<void(const std::string&)>& log,
                                   int64_t now_ms);
  // A claimed row as a job: its spec parsed from the row's text (or its file), or nullopt when it
  // no longer parses: then the job is recorded as failed (its error `why` and the parse error)
  // and its row removed.
  std::optional<QueuedJob> load(const QueuedJobRecord& q, const std::string& why, int64_t now_ms,
                                const std::function<void(const std::string&)>& log);

 private:
  Store& store_;
};

// The jobs waiting in this daemon's memory, oldest first (queued_ms). Not thread-safe.
class RunQueue {
 public:
  void push(QueuedJob job);  // keeps the order
  // The job, removed from the queue (nullopt: not queued here).
  std::optional<QueuedJob> take(const std::string& id);
  const QueuedJob* find(const std::string& id) const;
  QueuedJob* find(const std::string& id);
  bool has_pipeline(const std::string& name) const;
  bool any_held() const;  // some job waits for a budget cap
  // Drops the jobs not in `ids` (the store no longer has them queued for anyone).
  void keep_only(const std::set<std::string>& ids);
  const std::vector<QueuedJob>& jobs() const { return jobs_; }

 private:
  std::vector<QueuedJob> jobs_;
};

}  // namespace burst::daemon
