#include "store/sql_store.h"

#include <mutex>
#include <type_traits>
#include <utility>

#include "store/sql_caches.h"
#include "store/sql_jobs.h"
#include "store/sql_ledger.h"

namespace burst::sql {
namespace {

class SqlStore final : public Store {
 public:
  explicit SqlStore(std::unique_ptr<Db> db) : db_(std::move(db)) {}

  Status create_job(const JobRecord& job) override { return locked(sql::create_job, job); }
  Status update_job(const JobRecord& job) override { return locked(sql::update_job, job); }
  Result<JobRecord> get_job(const std::string& id) override { return locked(sql::get_job, id); }
  Result<std::vector<JobRecord>> recent_jobs(int limit) override {
    return locked(sql::recent_jobs, limit);
  }
  Result<std::vector<JobRecord>> jobs_between(int64_t from_ms, int64_t to_ms) override {
    return locked(sql::jobs_between, from_ms, to_ms);
  }

  Status begin_phase(const std::string& job_id, Phase phase, int64_t at_ms) override {
    return locked(sql::begin_phase, job_id, phase, at_ms);
  }
  Status end_phase(const std::string& job_id, Phase phase, int64_t at_ms, Outcome outcome,
                   const std::string& detail) override {
    return locked(sql::end_phase, job_id, phase, at_ms, outcome, detail);
  }
  Status record_phase(const PhaseRecord& row) override { return locked(sql::record_phase, row); }
  Result<std::vector<PhaseRecord>> phases(const std::string& job_id) override {
    return locked(sql::phases, job_id);
  }

  Result<int64_t> add_pod(const PodRecord& pod) override { return locked(sql::add_pod, pod); }
  Status update_pod(const PodRecord& pod) override { return locked(sql::update_pod, pod); }
  Result<std::vector<PodRecord>> pods_of_job(const std::string& job_id) override {
    return locked(sql::pods_of_job, job_id);
  }
  Result<std::vector<PodRecord>> live_pods() override { return locked(sql::live_pods); }
  Result<std::vector<PodRecord>> pods_of_jobs_between(int64_t from_ms, int64_t to_ms) override {
    return locked(sql::pods_of_jobs_between, from_ms, to_ms);
  }

  Status add_transfer(const TransferRecord& t) override { return locked(sql::add_transfer, t); }
  Result<std::vector<TransferRecord>> transfers(const std::string& job_id) override {
    return locked(sql::transfers, job_id);
  }
  Status add_replica(const ReplicaRecord& r) override { return locked(sql::add_replica, r); }
  Result<std::vector<ReplicaRecord>> replicas(const std::string& job_id) override {
    return locked(sql::replicas, job_id);
  }

  Result<std::optional<int64_t>> last_fire(const std::string& pipeline) override {
    return locked(sql::last_fire, pipeline);
  }
  Status set_last_fire(const std::string& pipeline, int64_t fire_ms) override {
    return locked(sql::set_last_fire, pipeline, fire_ms);
  }
  Result<bool> claim_fire(const std::string& pipeline, int64_t fire_ms) override {
    return locked(sql::claim_fire, pipeline, fire_ms);
  }

  Status put_volume(const VolumeRecord& v) override { return locked(sql::put_volume, v); }
  Result<std::optional<VolumeRecord>> get_volume(const std::string& provider,
                                                 const std::string& spec_name,
                                                 const std::string& region) override {
    return locked(sql::get_volume, provider, spec_name, region);
  }
  Result<std::vector<VolumeRecord>> live_volumes() override { return locked(sql::live_volumes); }
  Result<std::vector<VolumeRecord>> all_volumes() override { return locked(sql::all_volumes); }
  Status put_image_size(const ImageSizeRecord& r) override {
    return locked(sql::put_image_size, r);
  }
  Result<std::optional<ImageSizeRecord>> get_image_size(const std::string& image) override {
    return locked(sql::get_image_size, image);
  }

  Result<std::string> installation_id() override { return locked(sql::installation_id); }
  Result<int64_t> pod_first_seen(const std::string& provider, const std::string& pod_id,
                                 int64_t now_ms) override {
    return locked(sql::pod_first_seen, provider, pod_id, now_ms);
  }
  Status forget_pods_seen(const std::string& provider,
                          const std::vector<std::string>& still_listed) override {
    return locked(sql::forget_pods_seen, provider, still_listed);
  }

  Status add_queued(const QueuedJobRecord& q) override { return locked(sql::add_queued, q); }
  Result<std::vector<QueuedJobRecord>> queued_jobs() override { return locked(sql::queued_jobs); }
  Status set_queued_hold(const std::string& id, const std::string& held_by) override {
    return locked(sql::set_queued_hold, id, held_by);
  }
  Status remove_queued(const std::string& id) override { return locked(sql::remove_queued, id); }
  Result<std::optional<QueuedJobRecord>> claim_queued(const std::string& owner, int64_t now_ms,
                                                      int64_t lease_ms) override {
    return locked(sql::claim_queued, owner, now_ms, lease_ms);
  }
  Status renew_lease(const std::string& id, const std::string& owner, int64_t now_ms,
                     int64_t lease_ms) override {
    return locked(sql::renew_lease, id, owner, now_ms, lease_ms);
  }

  Result<std::string> reserve(const ReservationRecord& r,
                              const std::vector<LedgerCap>& caps) override {
    return locked(sql::reserve, r, caps);
  }
  Status release_reservation(const std::string& job_id, int64_t at_ms) override {
    return locked(sql::release_reservation, job_id, at_ms);
  }
  Result<std::vector<ReservationRecord>> open_reservations() override {
    return locked(sql::open_reservations);
  }
  Status record_spend(const SpendRecord& e) override { return locked(sql::record_spend, e); }
  Result<std::vector<SpendRecord>> spend_of_job(const std::string& job_id) override {
    return locked(sql::spend_of_job, job_id);
  }
  Result<double> committed_usd(const LedgerCap& cap, const std::string& day,
                               const std::string& month, const std::string& except) override {
    return locked(sql::committed_usd, cap, day, month, except);
  }
  Status set_cap(const CapChange& change) override { return locked(sql::set_cap, change); }
  Result<std::vector<CapSetting>> caps() override { return locked(sql::caps); }
  Result<std::vector<CapChange>> cap_changes(int limit) override {
    return locked(sql::cap_changes, limit);
  }

  Status add_calibration(const CalibrationRecord& c) override {
    return locked(sql::add_calibration, c);
  }
  Result<std::vector<CalibrationRecord>> calibration_samples(const std::string& pipeline,
                                                             const std::string& kind,
                                                             int limit) override {
    return locked(sql::calibration_samples, pipeline, kind, limit);
  }

 private:
  template <typename F, typename... Args>
  std::invoke_result_t<F, Db&, const Args&...> locked(F f, const Args&... args) {
    std::lock_guard<std::mutex> lock(mu_);
    db_->refresh();
    return f(*db_, args...);
  }

  std::mutex mu_;  // one statement at a time on the connection
  std::unique_ptr<Db> db_;
};

}  // namespace

std::unique_ptr<Store> make_store(std::unique_ptr<Db> db) {
  return std::make_unique<SqlStore>(std::move(db));
}

}  // namespace burst::sql
