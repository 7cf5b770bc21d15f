#include "job/pod_lifecycle.h"

#include <optional>

#include "util/retry.h"

namespace burst {

namespace {

// Retries live in one place: the driver's API call (http/api_call.h) retries what is safe to
// retry, so a provider error that reaches this file is final and is never retried here. What
// this file does repeat is polling for a state (running, listed, gone), on the clock.

// A pod list that lags behind a create is polled briefly, not for minutes.
RetryPolicy list_poll() { return RetryPolicy{Duration(500), Duration(4000), Duration(10000)}; }

}  // namespace

Result<Pod> create_recorded_pod(Store& store, Provider& provider, Clock& clock,
                                const PodRequest& request, PodRecord* record,
                                FaultObserver* faults) {
  record->name = request.name;
  record->provider = provider.name();
  record->state = PodRecordState::kCreating;
  record->created_ms = to_unix_ms(clock.now());
  auto row = store.add_pod(*record);
  if (!row.ok()) return with_context(row.error(), "cannot record the pod before creating it");
  record->row_id = *row;

  auto pod = provider.create_pod(request);
  if (!pod.ok()) {
    const ErrorCode c = pod.error().code;
    const bool surely_absent = c == ErrorCode::kInvalid || c == ErrorCode::kAuth ||
                               c == ErrorCode::kNoCapacity || c == ErrorCode::kNotFound ||
                               c == ErrorCode::kRateLimited;
    if (surely_absent) {
      record->state = PodRecordState::kCreateFailed;
      record->deleted_ms = to_unix_ms(clock.now());
      (void)store.update_pod(*record);
    }
    return pod.error();
  }
  if (faults) faults->reached("after-create");  // test hook: made, but its id not yet recorded
  record->pod_id = pod->id;
  record->state = PodRecordState::kAlive;
  Status st = store.update_pod(*record);
  if (!st.ok()) return with_context(st.error(), "pod " + pod->id + " created but not recorded");
  return pod;
}

Result<Pod> wait_until_running(Provider& provider, Clock& clock, const std::string& pod_id,
                               MonoTime deadline, const std::function<bool()>& should_stop,
                               FaultObserver* faults,
                               const std::function<void(const Pod&)>& on_poll) {
  Duration wait(200);
  std::string said;  // the provider's last words on the pod, for the errors below
  while (true) {
    if (should_stop && should_stop()) return make_error(ErrorCode::kInterrupted, "interrupted");
    if (faults) faults->reached("wait-ssh");
    auto pod = provider.get_pod(pod_id);
    if (pod.ok() && on_poll) on_poll(*pod);
    if (pod.ok())
      said = pod->status_note.empty() ? "" : "; " + provider.name() + " says: " + pod->status_note;
    if (pod.ok() && pod->state == PodState::kRunning && pod->ssh.port > 0) return pod;
    if (!pod.ok() && !pod.error().retryable()) return pod.error();
    // Stopping, exited, offline (PodState::kStopping) is no step on the way to running: the pod
    // is lost, and waiting for the SSH deadline would only bill it longer. The caller deletes it
    // (a worker's shard then runs again on a new pod, job/worker_fleet.h).
    if (pod.ok() && (pod->state == PodState::kGone || pod->state == PodState::kStopping))
      return make_error(ErrorCode::kUnavailable,
                        "pod " + pod_id + " stopped while booting (" +
                            (pod->state == PodState::kGone ? "gone" : "stopping or exited") +
                            " before SSH answered" + said + ")");
    if (clock.mono_now() + wait > deadline)
      return make_error(ErrorCode::kTimeout, "pod " + pod_id +
                                                 " was not running with SSH by the deadline" +
                                                 (said.empty() ? "" : " (" + said.substr(2) + ")"));
    clock.sleep_for(wait);
    wait = std::min(wait * 2, Duration(5000));
  }
}

Status check_list_readable(Provider& provider) {
  if (auto listed = provider.list_pods(); !listed.ok())
    return with_context(listed.error(), "refusing to create a pod, because " + provider.name() +
                                            "'s pod list cannot be read (burst could not find "
                                            "the pod again)");
  return Status::Ok();
}

Status check_pod_listed(Provider& provider, Clock& clock, const std::string& pod_id) {
  const MonoTime deadline = clock.mono_now() + list_poll().total;
  Duration wait = list_poll().first_wait;
  while (true) {
    auto pods = provider.list_pods();
    if (!pods.ok())
      return with_context(pods.error(),
                          provider.name() + " pod list, checked after creating pod " + pod_id);
    for (const auto& p : *pods)
      if (p.id == pod_id) return Status::Ok();
    if (clock.mono_now() + wait > deadline)
      return make_error(ErrorCode::kUnavailable,
                        provider.name() + " reports pod " + pod_id +
                            " running, but its pod list (" + std::to_string(pods->size()) +
                            " pods of ours) does not show it. burst finds lost pods through that "
                            "list, so it stops here rather than rely on it; the pod is deleted by "
                            "its id");
    clock.sleep_for(wait);
    wait = std::min(wait * 2, list_poll().max_wait);
  }
}

namespace {

// The provider's id for a pod whose create never returned one: look for its name in the list.
Result<std::string> find_id_by_name(Provider& provider, const std::string& name) {
  auto pods = provider.list_pods();
  if (!pods.ok()) return pods.error();
  for (const auto& p : *pods)
    if (p.name == name) return p.id;
  return std::string();  // never created
}

// The pod's row when the store already has it deleted and verified: a team shares the store, and
// another host (a member's `burst reap`, a daemon's sweep) may have finished it first. The bill
// ends at the first verified delete, whoever made it.
std::optional<PodRecord> deleted_elsewhere(Store& store, const PodRecord& record) {
  if (record.row_id == 0) return std::nullopt;
  auto rows = store.pods_of_job(record.job_id);
  if (!rows.ok()) return std::nullopt;
  for (const PodRecord& row : *rows)
    if (row.row_id == record.row_id && row.state == PodRecordState::kDeleted && row.deleted_ms > 0)
      return row;
  return std::nullopt;
}

}  // namespace

Status delete_and_verify(Store& store, Provider& provider, Clock& clock, PodRecord* record,
                         FaultObserver* faults) {
  const RetryPolicy policy;
  if (auto done = deleted_elsewhere(store, *record)) {
    *record = *done;
    return Status::Ok();
  }
  if (record->pod_id.empty()) {
    auto id = find_id_by_name(provider, record->name);
    if (!id.ok()) return with_context(id.error(), "find pod " + record->name);
    if (id->empty()) {  // the provider never made it
      record->state = PodRecordState::kCreateFailed;
      record->deleted_ms = to_unix_ms(clock.now());
      return store.update_pod(*record);
    }
    record->pod_id = *id;
  }
  record->state = PodRecordState::kDeleting;
  (void)store.update_pod(*record);
  const std::string what = provider.name() + " pod " + record->pod_id;

  Status del = provider.delete_pod(record->pod_id);
  if (!del.ok()) return with_context(del.error(), "delete " + what);
  if (faults) faults->reached("after-delete");  // test hook: accepted, not yet verified

  // Accepted is not done: poll until the provider no longer has it.
  const MonoTime deadline = clock.mono_now() + policy.total;
  Duration wait(200);
  while (true) {
    auto pod = provider.get_pod(record->pod_id);
    if (!pod.ok() && pod.error().code == ErrorCode::kNotFound) break;
    if (pod.ok() && pod->state == PodState::kGone) break;
    if (clock.mono_now() + wait > deadline)
      return make_error(ErrorCode::kTimeout,
                        "delete " + what + ": still present after the deadline");
    if (pod.ok()) (void)provider.delete_pod(record->pod_id);  // ask again; deletes are idempotent
    clock.sleep_for(wait);
    wait = std::min(wait * 2, Duration(5000));
  }
  record->state = PodRecordState::kDeleted;
  record->deleted_ms = to_unix_ms(clock.now());
  if (auto first = deleted_elsewhere(store, *record);
      first && first->deleted_ms < record->deleted_ms)
    record->deleted_ms = first->deleted_ms;
  return store.update_pod(*record);
}

}  // namespace burst
