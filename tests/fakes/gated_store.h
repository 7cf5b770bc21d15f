// A Store for tests that stands in for a slow database (a PostgreSQL round trip that takes its
// time): every call goes to a real store, but a call the test names blocks, once armed, until the
// test opens the gate. The test learns that a caller is waiting inside the store (wait_entered),
// so it can check what the rest of the code still answers meanwhile
// (tests/unit/daemon_scheduler_io_test.cpp). Waits are bounded so a broken test fails, never hangs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>

#include "burst/store.h"

namespace burst {

class GatedStore : public Store {
 public:
  explicit GatedStore(Store& inner) : inner_(inner) {}

  // From now on, a call to one of `calls` (e.g. "queued_jobs") blocks until open().
  void arm(std::set<std::string> calls) {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = std::move(calls);
    open_ = false;
  }
  // Lets every blocked call through, and every later one.
  void open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Waits (at most `limit` of real time) until a caller blocks in the store; true when one has.
  bool wait_entered(std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return waiting_ > 0; });
  }
  // The call that blocked first ("" none).
  std::string entered() {
    std::lock_guard<std::mutex> lock(mu_);
    return entered_;
  }

  Status create_job(const JobRecord& job) override {
    gate("create_job");
    return inner_.create_job(job);
  }
  Status update_job(const JobRecord& job) override {
    gate("update_job");
    return inner_.update_job(job);
  }
  Result<JobRecord> get_job(const std::string& id) override {
    gate("get_job");
    return inner_.get_job(id);
  }
  Result<std::vector<JobRecord>> recent_jobs(int limit) override {
    gate("recent_jobs");
    return inner_.recent_jobs(limit);
  }
  Result<std::vector<JobRecord>> jobs_between(int64_t from_ms, int64_t to_ms) override {
    gate("jobs_between");
    return inner_.jobs_between(from_ms, to_ms);
  }
  Status begin_phase(const std::string& job_id, Phase phase, int64_t at_ms) override {
    gate("begin_phase");
    return inner_.begin_phase(job_id, phase, at_ms);
  }
  Status end_phase(const std::string& job_id, Phase phase, int64_t at_ms, Outcome outcome,
                   const std::string& detail) override {
    gate("end_phase");
    return inner_.end_phase(job_id, phase, at_ms, outcome, detail);
  }
  Status record_phase(const PhaseRecord& row) override {
    gate("record_phase");
    return inner_.record_phase(row);
  }
  Result<std::vector<PhaseRecord>> phases(const std::string& job_id) override {
    gate("phases");
    return inner_.phases(job_id);
  }
  Result<int64_t> add_pod(const PodRecord& pod) override {
    gate("add_pod");
    return inner_.add_pod(pod);
  }
  Status update_pod(const PodRecord& pod) override {
    gate("update_pod");
    return inner_.update_pod(pod);
  }
  Result<std::vector<PodRecord>> pods_of_job(const std::string& job_id) override {
    gate("pods_of_job");
    return inner_.pods_of_job(job_id);
  }
  Result<std::vector<PodRecord>> live_pods() override {
    gate("live_pods");
    return inner_.live_pods();
  }
  Result<std::vector<PodRecord>> pods_of_jobs_between(int64_t from_ms, int64_t to_ms) override {
    gate("pods_of_jobs_between");
    return inner_.pods_of_jobs_between(from_ms, to_ms);
  }
  Status add_transfer(const TransferRecord& t) override {
    gate("add_transfer");
    return inner_.add_transfer(t);
  }
  Result<std::vector<TransferRecord>> transfers(const std::string& job_id) override {
    gate("transfers");
    return inner_.transfers(job_id);
  }
  Status add_replica(const ReplicaRecord& r) override {
    gate("add_replica");
    return inner_.add_replica(r);
  }
  Result<std::vector<ReplicaRecord>> replicas(const std::string& job_id) override {
    gate("replicas");
    return inner_.replicas(job_id);
  }
  Result<std::optional<int64_t>> last_fire(const std::string& pipeline) override {
    gate("last_fire");
    return inner_.last_fire(pipeline);
  }
  Status set_last_fire(const std::string& pipeline, int64_t fire_ms) override {
    gate("set_last_fire");
    return inner_.set_last_fire(pipeline, fire_ms);
  }
  Result<bool> claim_fire(const std::string& pipeline, int64_t fire_ms) override {
    gate("claim_fire");
    return inner_.claim_fire(pipeline, fire_ms);
  }
  Status put_volume(const VolumeRecord& v) override {
    gate("put_volume");
    return inner_.put_volume(v);
  }
  Result<std::optional<VolumeRecord>> get_volume(const std::string& provider,
                                                 const std::string& spec_name,
                                                 const std::string& region) override {
    gate("get_volume");
    return inner_.get_volume(provider, spec_name, region);
  }
  Result<std::vector<VolumeRecord>> live_volumes() override {
    gate("live_volumes");
    return inner_.live_volumes();
  }
  Result<std::vector<VolumeRecord>> all_volumes() override {
    gate("all_volumes");
    return inner_.all_volumes();
  }
  Status put_image_size(const ImageSizeRecord& r) override {
    gate("put_image_size");
    return inner_.put_image_size(r);
  }
  Result<std::optional<ImageSizeRecord>> get_image_size(const std::string& image) override {
    gate("get_image_size");
    return inner_.get_image_size(image);
  }
  Result<std::string> installation_id() override {
    gate("installation_id");
    return inner_.installation_id();
  }
  Result<int64_t> pod_first_seen(const std::string& provider, const std::string& pod_id,
                                 int64_t now_ms) override {
    gate("pod_first_seen");
    return inner_.pod_first_seen(provider, pod_id, now_ms);
  }
  Status forget_pods_seen(const std::string& provider,
                          const std::vector<std::string>& still_listed) override {
    gate("forget_pods_seen");
    return inner_.forget_pods_seen(provider, still_listed);
  }
  Status add_queued(const QueuedJobRecord& q) override {
    gate("add_queued");
    return inner_.add_queued(q);
  }
  Result<std::vector<QueuedJobRecord>> queued_jobs() override {
    gate("queued_jobs");
    return inner_.queued_jobs();
  }
  Status set_queued_hold(const std::string& id, const std::string& held_by) override {
    gate("set_queued_hold");
    return inner_.set_queued_hold(id, held_by);
  }
  Status remove_queued(const std::string& id) override {
    gate("remove_queued");
    return inner_.remove_queued(id);
  }
  Result<std::optional<QueuedJobRecord>> claim_queued(const std::string& owner, int64_t now_ms,
                                                      int64_t lease_ms) override {
    gate("claim_queued");
    return inner_.claim_queued(owner, now_ms, lease_ms);
  }
  Status renew_lease(const std::string& id, const std::string& owner, int64_t now_ms,
                     int64_t lease_ms) override {
    gate("renew_lease");
    return inner_.renew_lease(id, owner, now_ms, lease_ms);
  }
  Result<std::string> reserve(const ReservationRecord& r,
                              const std::vector<LedgerCap>& caps) override {
    gate("reserve");
    return inner_.reserve(r, caps);
  }
  Status release_reservation(const std::string& job_id, int64_t at_ms) override {
    gate("release_reservation");
    return inner_.release_reservation(job_id, at_ms);
  }
  Result<std::vector<ReservationRecord>> open_reservations() override {
    gate("open_reservations");
    return inner_.open_reservations();
  }
  Status record_spend(const SpendRecord& s) override {
    gate("record_spend");
    return inner_.record_spend(s);
  }
  Result<std::vector<SpendRecord>> spend_of_job(const std::string& job_id) override {
    gate("spend_of_job");
    return inner_.spend_of_job(job_id);
  }
  Result<double> committed_usd(const LedgerCap& cap, const std::string& day,
                               const std::string& month,
                               const std::string& except_job_id) override {
    gate("committed_usd");
    return inner_.committed_usd(cap, day, month, except_job_id);
  }
  Status set_cap(const CapChange& change) override {
    gate("set_cap");
    return inner_.set_cap(change);
  }
  Result<std::vector<CapSetting>> caps() override {
    gate("caps");
    return inner_.caps();
  }
  Result<std::vector<CapChange>> cap_changes(int limit) override {
    gate("cap_changes");
    return inner_.cap_changes(limit);
  }
  Status add_calibration(const CalibrationRecord& c) override {
    gate("add_calibration");
    return inner_.add_calibration(c);
  }
  Result<std::vector<CalibrationRecord>> calibration_samples(const std::string& pipeline,
                                                             const std::string& kind,
                                                             int limit) override {
    gate("calibration_samples");
    return inner_.calibration_samples(pipeline, kind, limit);
  }

 private:
  // Blocks the call while the gate is armed for it and closed; at most 30 s, so a test that never
  // opens the gate fails on its own assertions instead of hanging.
  void gate(const char* call) {
    std::unique_lock<std::mutex> lock(mu_);
    if (open_ || !armed_.count(call)) return;
    if (entered_.empty()) entered_ = call;
    ++waiting_;
    cv_.notify_all();
    cv_.wait_for(lock, std::chrono::seconds(30), [&] { return open_; });
    --waiting_;
  }

  Store& inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> armed_;
  bool open_ = true;
  int waiting_ = 0;
  std::string entered_;
};

}  // namespace burst
