#include "daemon/lease_book.h"

#include "daemon/lease_owner.h"

namespace burst::daemon {

void LeaseBook::hold(const std::string& id, TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  held_.insert(id);
  if (!next_renew_) next_renew_ = now + lease_ / 3;
}

void LeaseBook::hold_if_ours(const std::string& id, TimePoint now) {
  auto rows = store_.queued_jobs();
  if (!rows.ok()) return;
  for (const QueuedJobRecord& q : *rows)
    if (q.id == id && q.lease_owner == owner_) hold(id, now);
}

bool LeaseBook::lost(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return lost_.count(id) > 0;
}

void LeaseBook::forget(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  held_.erase(id);
  lost_.erase(id);
}

std::vector<std::string> LeaseBook::renew_due(TimePoint now) {
  std::vector<std::string> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (held_.empty()) {
      next_renew_.reset();
      return {};
    }
    if (next_renew_ && now < *next_renew_) return {};
    for (const std::string& id : held_)
      if (!lost_.count(id)) due.push_back(id);
    next_renew_ = now + lease_ / 3;
  }
  std::vector<std::string> lost;
  for (const std::string& id : due) {
    Status st = store_.renew_lease(id, owner_, to_unix_ms(now), lease_.count());
    if (st.ok() || st.error().code != ErrorCode::kNotFound) continue;
    std::lock_guard<std::mutex> lock(mu_);
    if (!held_.count(id)) continue;  // it ended meanwhile
    lost_.insert(id);
    lost.push_back(id);
  }
  return lost;
}

std::optional<TimePoint> LeaseBook::next_renew() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_renew_;
}

std::optional<std::set<std::string>> LeaseBook::free_rows(
    TimePoint now, const std::function<void(const std::string&)>& log) {
  auto rows = store_.queued_jobs();
  if (!rows.ok()) return std::nullopt;
  const int64_t now_ms = to_unix_ms(now);
  std::set<std::string> free;
  for (const QueuedJobRecord& q : *rows) {
    const bool foreign = !q.lease_owner.empty() && q.lease_owner != owner_;
    const bool live = q.lease_expires_ms > now_ms;
    if (foreign && live && lease_owner_dead_here(q.lease_owner)) {
      // Its burstd was killed on this host (a restart, or a sibling): no need to wait the lease.
      if (store_.renew_lease(q.id, q.lease_owner, now_ms, 0).ok())
        log("job " + q.id + ": the burstd holding it (" + q.lease_owner +
            ") is gone; its lease ended now");
      free.insert(q.id);
      continue;
    }
    if (!(foreign && live)) free.insert(q.id);
  }
  return free;
}

Claim LeaseBook::claim(TimePoint now, const std::function<void(const std::string&)>& log) {
  Claim c;
  auto claimed = store_.claim_queued(owner_, to_unix_ms(now), lease_.count());
  if (!claimed.ok()) {
    log("queue: cannot claim a job from the store: " + claimed.error().message);
    return c;
  }
  if (!claimed->has_value()) return c;
  c.row = std::move(**claimed);
  auto job = store_.get_job(c.row.id);
  if (job.ok()) {
    c.kind = job->state == JobState::kRunning ? Claim::Kind::kStarted : Claim::Kind::kEnded;
    c.job = std::move(*job);
  } else {
    c.kind = job.error().code == ErrorCode::kNotFound ? Claim::Kind::kNew : Claim::Kind::kUnknown;
  }
  return c;
}

void LeaseBook::release(const std::vector<std::string>& ids, TimePoint now) {
  for (const std::string& id : ids) (void)store_.renew_lease(id, owner_, to_unix_ms(now), 0);
}

}  // namespace burst::daemon
