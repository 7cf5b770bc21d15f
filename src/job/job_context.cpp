#include "job/job_context.h"

#include <filesystem>

#include "job/budget_guard.h"
#include "util/private_file.h"
#include "util/terminal_text.h"

namespace burst {

JobContext::JobContext(JobDeps& deps, JobInput& input, Redactor& redact)
    : d_(deps),
      in_(input),
      redact_(redact),
      billing_clock_([this] { return d_.clock.mono_now(); }),
      billing_(billing_of_plan(input.plan)) {
  std::error_code ec;
  std::filesystem::create_directories(d_.config.logs_dir, ec);
  // Created 0600 before the stream opens it (util/private_file.h): the log is the user's alone.
  (void)touch_private_file(d_.config.logs_dir + "/" + in_.job_id + ".log");
  log_.open(d_.config.logs_dir + "/" + in_.job_id + ".log", std::ios::app);
  caps_ = job_money_caps(in_.spec.budget.max_usd, d_.extra_caps, in_.plan.estimate.transfer_usd);
  if (wide()) tag_ = "[w" + std::to_string(in_.worker.index) + "] ";
}

void JobContext::set_fleet(std::function<std::string()> stop_reason, FleetProvision* provision) {
  fleet_stop_ = std::move(stop_reason);
  fleet_provision_ = provision;
}

void JobContext::fault(std::string_view point, std::string_view suffix) {
  if (!d_.faults) return;
  if (suffix.empty()) return d_.faults->reached(point);
  std::string name(point);
  name += suffix;
  d_.faults->reached(name);
}

void JobContext::adopt_session(PodHandle& pod, std::unique_ptr<RemoteSession> session) {
  drop_session(pod);
  pod.session = std::move(session);
  if (watchdog_ && pod.session) watchdog_->attach(pod.session.get());
}

void JobContext::drop_session(PodHandle& pod) {
  if (!pod.session) return;
  if (watchdog_) watchdog_->detach(pod.session.get());
  pod.session.reset();
}

void JobContext::say(const std::string& text) {
  std::string clean = tag_ + terminal_safe(redact_(text));  // errors may quote what a pod said
  d_.console.line(clean);
  log_ << format_utc(d_.clock.now()) << " " << clean << "\n" << std::flush;
}

void JobContext::phase_started(Phase phase) {
  d_.console.phase_started(wide() ? std::optional<int>(in_.worker.index) : std::nullopt, phase);
  say("==> " + std::string(to_string(phase)));
}

void JobContext::fail(const std::string& why, JobStop stop) {
  if (!error_.empty()) return;
  error_ = terminal_safe(redact_(why));
  stop_ = stop;
}

Outcome JobContext::failed(const Error& error, const std::string& what, std::string* detail,
                           JobStop stop) {
  Error e = error;
  if (past_deadline() && (e.code == ErrorCode::kInterrupted || e.code == ErrorCode::kConnection ||
                          e.code == ErrorCode::kTimeout)) {
    // budget.deadline passed: the call was stopped for it, or broken by the watchdog's abort.
    e.message = watchdog_->deadline_reason();
    e.code = ErrorCode::kTimeout;
    stop = JobStop::kDeadline;
  } else if (watchdog_ && watchdog_->aborted() &&
             (e.code == ErrorCode::kInterrupted || e.code == ErrorCode::kConnection)) {
    // The watchdog broke the session (job/job_watchdog.h): its deadline is the cause.
    e.message = watchdog_->reason();
    e.code = e.message.rfind("stopped: " + d_.stop_source, 0) == 0 ? ErrorCode::kInterrupted
                                                                   : ErrorCode::kTimeout;
    stop = watchdog_->stopped_by();
  } else if (e.code == ErrorCode::kTimeout && e.message.rfind("no bytes from the pod", 0) == 0) {
    e.message = "stopped: " + e.message;  // the no-progress timeout (libssh adapter)
    stop = JobStop::kNoProgress;
  } else if (e.code == ErrorCode::kInterrupted && fleet_stop_ && !fleet_stop_().empty()) {
    // A worker stopped with its fleet: a stop request, a deadline, or another worker's failure.
    e.message = fleet_stop_();
    if (e.message != "stopped: " + d_.stop_source) e.code = ErrorCode::kRemoteFailed;
    // The fleet's stop is the watchdog's reason once it fired (job/worker_fleet.cpp).
    stop = watchdog_ && watchdog_->fired() ? watchdog_->stopped_by() : JobStop::kNone;
  } else if (e.code == ErrorCode::kInterrupted && d_.interrupts() > 0) {
    e.message = "stopped: " + d_.stop_source;  // a step saw the stop request before the watchdog
    stop = JobStop::kNone;
  }
  *detail = terminal_safe(redact_(what + ": " + e.message));
  fail(*detail, stop);
  say("error: " + *detail);
  if (e.code == ErrorCode::kInterrupted) return Outcome::kInterrupted;
  if (e.code == ErrorCode::kConnection) return Outcome::kConnectionLost;
  return Outcome::kFailed;
}

void JobContext::remote_line(bool is_err, const std::string& line) {
  std::string clean =
      tag_ + terminal_safe(redact_(line));  // no pod's escape sequence reaches a terminal
  if (is_err)
    d_.console.remote_err(clean);
  else
    d_.console.remote_out(clean);
  log_ << format_utc(d_.clock.now()) << (is_err ? " ! " : " | ") << clean << "\n" << std::flush;
}

Outcome JobContext::unless_stopped(const std::string& what, std::string* detail) {
  if (past_deadline())
    return failed(make_error(ErrorCode::kTimeout, watchdog_->deadline_reason()), what, detail);
  return d_.interrupts() > 0 ? Outcome::kInterrupted : Outcome::kOk;
}

std::string JobContext::budget_exceeded(const std::vector<PodRecord>& own_pods) const {
  std::vector<PodRecord> pods = own_pods;
  if (wide()) {  // the job's budget: every worker's pods, retried ones included
    auto all = d_.store.pods_of_job(in_.job_id);
    if (all.ok()) pods = std::move(*all);
  }
  return budget_stop_reason(pods, billing_clock_.now(d_.clock.now()), caps_, billing_);
}

}  // namespace burst
