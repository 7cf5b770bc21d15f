// Durable state: jobs, their phase transitions, and every pod burst ever asked a provider for.
// Two adapters (src/store/): SQLite, one file per installation, and PostgreSQL, one database a
// team's daemons share (docs/daemon.md, "A team on PostgreSQL"). Times are Unix ms.
//
// The pod rows are the safety net against leaks: a row is written *before* the provider's create
// call (state "creating", name known, id unknown) and updated with the id the moment create
// returns, so `burst reap` can always find a pod by id or, failing that, by name.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "burst/result.h"
#include "burst/states.h"

namespace burst {

struct JobRecord {
  std::string id;        // "20261122-070941-ab12cd"
  std::string pipeline;  // spec name
  std::string spec_path;
  JobState state = JobState::kRunning;  // never kQueued in the store
  // The phase in progress, or the last one; kQueued or kReap for a job that never ran
  // (burst/states.h). The store keeps to_string's text.
  Phase phase = Phase::kPlan;
  std::string provider;
  std::string error;          // why it failed, redacted; empty on success
  std::string estimate_json;  // the plan's estimate, as JSON text
  std::string report_path;    // JSON report, once written
  // Facts the cost report needs that the plan knew at creation (billing rule, budget, deadline,
  // predicted bound; report/job_facts.h), as JSON text. Never rewritten, so reports never change.
  std::string facts_json;
  int64_t created_ms = 0;
  int64_t finished_ms = 0;  // 0 while running
  int64_t owner_pid = 0;    // the burst process running it (reap leaves a live owner's pods alone)
  // When that process started (util/proc_start.h): with the pid, it recognises the owner even
  // after the pid is reused. "" for jobs recorded before start times were kept.
  std::string owner_start;
  // Which limit stopped it, as the runner knew it. nullopt when not known: a job recorded before
  // burst kept it (the report then reads `error` as it always did), or one no runner ran.
  std::optional<JobStop> stop;
};

struct PhaseRecord {
  std::string job_id;
  Phase phase = Phase::kPlan;
  int64_t started_ms = 0;
  int64_t ended_ms = 0;            // 0 while in progress
  std::optional<Outcome> outcome;  // nullopt while in progress
  std::string detail;              // for a worker's row, "w<i>: " and what the phase said
  // The worker of a job of several whose row this is (Store::record_phase); nullopt for a job of
  // one pod, and for rows recorded before workers were (the report then reads "w<i>: ").
  std::optional<int> worker;
  // A worker's provision row: what the fleet's fallback changed from the plan, redacted ("" when
  // nothing did); the detail says it too, after "deviated from the plan: ".
  std::string deviation;
};

struct PodRecord {
  int64_t row_id = 0;
  std::string job_id;
  std::string provider;
  std::string role;    // "gpu" | "cpu"
  std::string name;    // the name burst gave it (carries the tag and job id)
  std::string pod_id;  // provider's id; empty until create returned
  std::string gpu_type;
  int gpu_count = 0;
  double usd_per_hour = 0;   // price captured at creation
  std::string price_source;  // "config" | "offline table" | "live offer"
  PodRecordState state = PodRecordState::kCreating;
  std::string host_key;    // pinned on first SSH contact; empty before
  int64_t created_ms = 0;  // when create was requested
  int64_t deleted_ms = 0;  // when deletion was confirmed
};

struct TransferRecord {
  std::string job_id;
  // "sync" | "pull" | "volume-read" (job/volume_read.h: a warm volume read, timed on the pod)
  std::string direction;
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t millis = 0;
};

// One replica of a run step that ran as several on one pod (job/replica_step.h; issue 33): what
// the runner read back from the pod after the step (job/replica_stats.h: the pod's words, parsed
// strictly and bounded) beside what burst itself knew (the pod, the replica's GPUs and items).
struct ReplicaRecord {
  std::string job_id;
  int worker = 0;       // the fleet worker whose pod it ran on; 0 for a job of one pod
  std::string pod_id;   // the provider's id of that pod
  int replica = 0;      // BURST_REPLICA_INDEX
  int replicas = 0;     // BURST_REPLICA_COUNT
  std::string gpus;     // its CUDA_VISIBLE_DEVICES, e.g. "0" or "2,3"
  int64_t items = 0;    // the items given to it (its share of the pod's items); 0 without items
  int64_t run_ms = 0;   // its copy's run time, from its start to its exit, as the pod timed it
  int64_t step_ms = 0;  // the step's: the first replica's start to the last one's exit
  // Mean GPU utilisation over its cards, in percent, from `nvidia-smi` samples the wrapper took
  // while it ran; nullopt when the pod gave none (no nvidia-smi, a run too short to sample).
  std::optional<double> gpu_util_pct;
  int64_t gpu_util_samples = 0;
  int exit_status = 0;  // its copy's exit status
};

// One measurement for estimate calibration: the run step's measured seconds against the model's
// prediction, for `units` of work (items or tokens) on one GPU type.
struct CalibrationRecord {
  std::string job_id;
  std::string pipeline;
  std::string gpu_type;
  std::string workload_kind;  // spec workload.kind, "" when unset
  double units = 0;
  double measured_s = 0;
  double predicted_s = 0;
  int64_t recorded_ms = 0;
};

// An image's compressed size as its registry stated it (image/registry_client.h), cached so a
// plan asks a registry at most once a day per image (a failed lookup: a few minutes). Key: image,
// the canonical reference
// ("registry-1.docker.io/library/ubuntu:22.04").
struct ImageSizeRecord {
  std::string image;
  int64_t bytes = 0;
  int64_t fetched_ms = 0;  // when the registry said it (the caller applies its TTL)
  // Why the last lookup failed ("not found: ..."); "" when bytes is the answer. A failure is
  // remembered a short while so a registry that is down does not cost every plan its deadline.
  std::string failure;
};

// Which provider volume holds a spec's volume in one region (issue 17): providers whose list does
// not return a name (Vast) can only be found again through this row. Written "creating" *before*
// the provider's create call (volume_id empty) and given the id the moment create returns, like
// pod rows, so a lost answer never makes a second volume. Key: (provider, spec_name, region).
struct VolumeRecord {
  std::string provider;
  std::string spec_name;  // the spec's volume.name
  std::string region;     // the offer's region the volume was made for
  std::string volume_id;  // the provider's id; empty while "creating"
  std::string state;      // "creating" | "ready" | "deleted"
  int size_gb = 0;
  double usd_per_gb_month = 0;  // storage price when known (provider docs or live offer), else 0
  int64_t created_ms = 0;
  int64_t updated_ms = 0;
};

// A job burstd accepted and has not finished (docs/daemon.md, "The queue"): written before
// `burst submit` returns and removed when the job ends, so a restarted burstd finds every job it
// owes. A row whose job already has a JobRecord was started; the others are still queued.
struct QueuedJobRecord {
  std::string id;
  std::string pipeline;
  std::string spec_path;
  std::string spec_text;  // the spec's YAML as submitted (parsed again after a restart)
  std::string reason;     // "submitted", "schedule 2026-11-22T03:00:00Z", ...
  int64_t queued_ms = 0;
  std::string held_by;  // the budget cap that keeps it waiting; "" when none
  // The lease (claim_queued): which daemon holds the job and until when; "" and 0 when none.
  std::string lease_owner;
  int64_t lease_expires_ms = 0;
  std::string user;  // who submitted it (the per-user caps); "" for a schedule's fire
};

// The money ledger (docs/daemon.md, "The ledger"). A reservation holds a job's estimated cost
// against the caps it falls under from before it starts until it ends (released_ms != 0).
struct ReservationRecord {
  std::string job_id;
  std::string pipeline;
  double usd = 0;
  std::string day;    // UTC "2026-11-22" the job was admitted; its spend counts on this day
  std::string month;  // UTC "2026-11"
  int64_t reserved_ms = 0;
  int64_t released_ms = 0;  // 0 while the job runs
  std::string team;         // burstd.yaml's `team` of the daemon that reserved it; "" none
  std::string user;         // QueuedJobRecord::user
};

// Spend as it accrues: one entry per pod and billing interval (its start, from_ms), extended as
// time passes. Writing the same interval again never adds to it, so a reattached job continues
// its entries instead of counting its spend twice.
struct SpendRecord {
  int64_t pod_row_id = 0;
  int64_t from_ms = 0;
  int64_t to_ms = 0;
  double usd = 0;  // billed for [from_ms, to_ms)
  std::string job_id;
  std::string pipeline;
  std::string day;
  std::string month;
};

// One cap in the ledger: a period ("day" = the reservation's UTC day, "month", or "all") and an
// optional pipeline, team and user it is limited to (those of the job's reservation). What
// counts against it is every other job's accrued spend in that scope plus what is left of their
// open reservations; a job's spend is in a team's or user's scope through its reservation.
struct LedgerCap {
  std::string period = "day";  // "day" | "month" | "all"
  std::string pipeline;        // "" = every pipeline
  double usd = 0;
  std::string name;  // as `burst status` shows it: "burstd budget.usd_per_day"
  std::string team;  // "" = every team
  std::string user;  // "" = every user
};

// A budget cap kept in the store, the team's one place for its money (docs/daemon.md, "Team and
// user budgets"): set with `burst caps set` (burstd's POST /v1/caps), read live by every daemon
// on the store. scope "team" (subject: the team's name), "user" (a user's name, or "*" for every
// user) or "pipeline" (a pipeline's name); period "day" or "month" (UTC).
struct CapSetting {
  std::string scope;
  std::string subject;
  std::string period;
  double usd = 0;
  std::string set_by;  // who set it, as the client said
  int64_t set_ms = 0;
};

// One change of a stored cap, as the audit keeps it: set (new_usd) or removed (nullopt).
struct CapChange {
  std::string scope;
  std::string subject;
  std::string period;
  std::optional<double> old_usd;  // filled in by the store
  std::optional<double> new_usd;
  std::string set_by;
  int64_t at_ms = 0;
};

// The store in roles (issue 31): a part of burst that needs one role takes that interface, so
// what it may touch shows in its signature; `Store` is all of them, and both databases
// (src/store: SQLite and PostgreSQL over one SQL layer) implement it whole.

// Jobs, their phase rows and their transfers.
class JobStore {
 public:
  virtual ~JobStore() = default;

  // A job must exist before its phases, pods and transfers are recorded (foreign keys).
  virtual Status create_job(const JobRecord& job) = 0;
  // By id; every field but id and created_ms. kNotFound when no such job.
  virtual Status update_job(const JobRecord& job) = 0;
  virtual Result<JobRecord> get_job(const std::string& id) = 0;       // kNotFound when absent
  virtual Result<std::vector<JobRecord>> recent_jobs(int limit) = 0;  // newest first, limit > 0
  // Jobs created in [from_ms, to_ms), oldest first.
  virtual Result<std::vector<JobRecord>> jobs_between(int64_t from_ms, int64_t to_ms) = 0;

  virtual Status begin_phase(const std::string& job_id, Phase phase, int64_t at_ms) = 0;
  // Closes the most recent open row of that phase; kNotFound when none is open.
  virtual Status end_phase(const std::string& job_id, Phase phase, int64_t at_ms, Outcome outcome,
                           const std::string& detail) = 0;
  // A finished phase row written whole (a fleet worker's: `worker` and `deviation` with it).
  virtual Status record_phase(const PhaseRecord& row) = 0;
  virtual Result<std::vector<PhaseRecord>> phases(const std::string& job_id) = 0;  // in order

  virtual Status add_transfer(const TransferRecord& t) = 0;
  virtual Result<std::vector<TransferRecord>> transfers(const std::string& job_id) = 0;

  virtual Status add_replica(const ReplicaRecord& r) = 0;
  // In the order added (a retried worker's replicas after its first pod's).
  virtual Result<std::vector<ReplicaRecord>> replicas(const std::string& job_id) = 0;
};

// Every pod and volume burst asked a provider for, and what reap knows of pods it found.
class PodStore {
 public:
  virtual ~PodStore() = default;

  // Writes the row and returns its row_id.
  virtual Result<int64_t> add_pod(const PodRecord& pod) = 0;
  // Replaces every field but row_id. kNotFound when no such row.
  virtual Status update_pod(const PodRecord& pod) = 0;
  virtual Result<std::vector<PodRecord>> pods_of_job(const std::string& job_id) = 0;
  // Pods not confirmed deleted ("creating", "alive", "deleting"), oldest first.
  virtual Result<std::vector<PodRecord>> live_pods() = 0;
  // Every pod of the jobs created in [from_ms, to_ms), in row order (one query for roll-ups).
  virtual Result<std::vector<PodRecord>> pods_of_jobs_between(int64_t from_ms, int64_t to_ms) = 0;

  // Volume mappings (VolumeRecord). put_volume inserts or replaces the row of its key.
  virtual Status put_volume(const VolumeRecord& v) = 0;
  // The row of (provider, spec_name, region); nullopt when none.
  virtual Result<std::optional<VolumeRecord>> get_volume(const std::string& provider,
                                                         const std::string& spec_name,
                                                         const std::string& region) = 0;
  // Every row not "deleted", oldest first.
  virtual Result<std::vector<VolumeRecord>> live_volumes() = 0;
  // Every row, deleted ones included (storage billed until deletion), oldest first.
  virtual Result<std::vector<VolumeRecord>> all_volumes() = 0;

  // Ownership (docs/daemon.md, "Ownership"). This installation's id: made once with the store,
  // never changed; every pod's name carries it (burst/provider.h, pod_name).
  virtual Result<std::string> installation_id() = 0;
  // When a pod of ours the store has no row for was first seen in the provider's list: the first
  // call for (provider, pod_id) records `now_ms` and returns it, later ones return that time.
  virtual Result<int64_t> pod_first_seen(const std::string& provider, const std::string& pod_id,
                                         int64_t now_ms) = 0;
  // Forgets the first-seen times of `provider`'s pods not in `still_listed` (gone or adopted).
  virtual Status forget_pods_seen(const std::string& provider,
                                  const std::vector<std::string>& still_listed) = 0;
};

// burstd's schedules, queue and leases.
class QueueStore {
 public:
  virtual ~QueueStore() = default;

  // burstd's schedules: the last fire time handled for a pipeline (by name), run or skipped;
  // nullopt when it never fired. set_last_fire replaces the previous value.
  virtual Result<std::optional<int64_t>> last_fire(const std::string& pipeline) = 0;
  virtual Status set_last_fire(const std::string& pipeline, int64_t fire_ms) = 0;
  // Several burstd on one store: records `fire_ms` only if it is later than the recorded fire
  // (or there is none), in one statement. true: this caller moved it and fires the pipeline;
  // false: another daemon already handled this fire time (or a later one), so it does not.
  virtual Result<bool> claim_fire(const std::string& pipeline, int64_t fire_ms) = 0;

  // burstd's durable queue (QueuedJobRecord). add_queued fails (kInvalid) on a duplicate id.
  virtual Status add_queued(const QueuedJobRecord& q) = 0;
  virtual Result<std::vector<QueuedJobRecord>> queued_jobs() = 0;  // oldest first
  virtual Status set_queued_hold(const std::string& id, const std::string& held_by) = 0;
  virtual Status remove_queued(const std::string& id) = 0;  // kNotFound when absent

  // Leases (docs/daemon.md, "Leases"): daemons sharing one store claim a queued job before they
  // start or reattach it. claim_queued takes the oldest row no live lease holds (none, or one that
  // expired at or before now_ms) for `owner` until now_ms + lease_ms, in one transaction, and
  // returns it; nullopt when every row is held. Two claimers never get the same row while its
  // lease lives. `owner` names one daemon process (not the installation, which a team shares).
  virtual Result<std::optional<QueuedJobRecord>> claim_queued(const std::string& owner,
                                                              int64_t now_ms, int64_t lease_ms) = 0;
  // Extends `owner`'s lease on `id` to now_ms + lease_ms. kNotFound when the row is gone or
  // another owner claimed it after the lease expired: the job is no longer this daemon's.
  virtual Status renew_lease(const std::string& id, const std::string& owner, int64_t now_ms,
                             int64_t lease_ms) = 0;
};

// The money ledger: reservations, spend, caps and their audit.
class LedgerStore {
 public:
  virtual ~LedgerStore() = default;

  // The ledger. reserve() checks, in one transaction, every cap against what is committed in its
  // scope by other jobs (committed_usd) plus `r.usd`, and writes the reservation only when all
  // hold: it returns "" then, or the name of the first cap that does not (nothing written). A
  // job reserving again replaces its reservation.
  virtual Result<std::string> reserve(const ReservationRecord& r,
                                      const std::vector<LedgerCap>& caps) = 0;
  virtual Status release_reservation(const std::string& job_id, int64_t at_ms) = 0;
  virtual Result<std::vector<ReservationRecord>> open_reservations() = 0;  // oldest first
  // Inserts the entry (pod_row_id, from_ms) or extends it: to_ms and usd only grow.
  virtual Status record_spend(const SpendRecord& s) = 0;
  virtual Result<std::vector<SpendRecord>> spend_of_job(const std::string& job_id) = 0;
  // Accrued spend of every job but `except_job_id` in the cap's scope (day, month as given) plus
  // the unspent part of their open reservations.
  virtual Result<double> committed_usd(const LedgerCap& cap, const std::string& day,
                                       const std::string& month,
                                       const std::string& except_job_id) = 0;

  // Stored caps (CapSetting). set_cap sets the cap of (scope, subject, period) to new_usd, or
  // removes it when new_usd is nullopt, and appends the change (with the value it replaced) to
  // the audit, in one transaction. caps() lists them by scope, subject, period; cap_changes the
  // audit, newest first, at most `limit`.
  virtual Status set_cap(const CapChange& change) = 0;
  virtual Result<std::vector<CapSetting>> caps() = 0;
  virtual Result<std::vector<CapChange>> cap_changes(int limit) = 0;
};

// What planning learns and keeps: image sizes and calibration samples.
class CacheStore {
 public:
  virtual ~CacheStore() = default;

  // Image sizes (ImageSizeRecord). put_image_size inserts or replaces the image's row;
  // get_image_size returns it, or nullopt when there is none.
  virtual Status put_image_size(const ImageSizeRecord& r) = 0;
  virtual Result<std::optional<ImageSizeRecord>> get_image_size(const std::string& image) = 0;

  virtual Status add_calibration(const CalibrationRecord& c) = 0;
  // A pipeline's measurements of one workload kind, newest first, at most `limit`.
  virtual Result<std::vector<CalibrationRecord>> calibration_samples(const std::string& pipeline,
                                                                     const std::string& kind,
                                                                     int limit) = 0;
};

// All of the roles: what open_sqlite_store and open_postgres_store return.
class Store : public JobStore,
              public PodStore,
              public QueueStore,
              public LedgerStore,
              public CacheStore {
 public:
  ~Store() override = default;
};

// Opens (creating if needed) the SQLite database at `path` (":memory:" for tests) and migrates its
// schema to the current version. Fails with kInvalid if the file is from a newer burst.
Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path);

// Connects to PostgreSQL with a libpq connection string ("postgres://user@host/db", or
// "host=/run/postgresql dbname=burst") and migrates the schema in the current search_path, once
// even when several daemons start at once. The password is best left out of it: libpq reads
// PGPASSWORD, PGPASSFILE and ~/.pgpass. Errors never carry the password (redact_store_url).
// kInvalid when the database is from a newer burst; kConnection when the server cannot be reached.
Result<std::unique_ptr<Store>> open_postgres_store(const std::string& conninfo);

// Whether `store` (config.yaml's `store:`) names a PostgreSQL database: postgres:// or
// postgresql://.
bool is_postgres_url(const std::string& store);
// The same text with any password replaced by "***" (URL userinfo and password= / ?password=),
// for logs and errors.
std::string redact_store_url(const std::string& store);
// config.yaml's `store:` when set (a PostgreSQL URL), else the SQLite file at `db_path`.
Result<std::unique_ptr<Store>> open_store(const std::string& store_url, const std::string& db_path);

}  // namespace burst
