#include "job/transfers.h"

#include "sync/artefact_pull.h"
#include "sync/transfer_progress.h"
#include "util/shell.h"

namespace burst {

Transfers::Transfers(JobContext& ctx, JobPods& pods)
    : ctx_(ctx), d_(ctx.deps()), in_(ctx.input()), pods_(pods) {}

Outcome Transfers::sync(const std::string& volume_key, std::string* detail) {
  if (!in_.spec.code.synced()) return Outcome::kSkipped;
  for (const auto& w : in_.code.warnings) ctx_.say("warning: " + w);
  if (ctx_.fleet() && !ctx_.fleet()->shared_code_dir.empty() && !volume_key.empty())
    return sync_shared(volume_key, detail);
  auto synced = sync_into(pods_.workdir);
  if (!synced.ok()) return ctx_.failed(synced.error(), "sync", detail);
  const SyncStats* stats = &synced->first;
  const double secs = synced->second;
  *detail = std::to_string(stats->files_sent) + " of " + std::to_string(stats->files_total) +
            " files sent (" + human_bytes(stats->bytes_sent) + "), " +
            std::to_string(stats->files_deleted) + " removed, " +
            std::to_string(stats->files_touched) + " touched, " +
            std::to_string(stats->round_trips) + " round trips";
  ctx_.say("synced " + *detail + " to " + pods_.workdir + " in " +
           std::to_string(secs).substr(0, 4) + " s, " + human_rate(stats->bytes_sent, secs));
  return ctx_.unless_stopped("sync", detail);
}

Outcome Transfers::sync_shared(const std::string& volume_key, std::string* detail) {
  FleetProvision& fleet = *ctx_.fleet();
  std::shared_ptr<std::mutex> mu = fleet.volume_lock(fleet.sync_by_volume, volume_key);
  std::lock_guard<std::mutex> one_sync(*mu);  // the others on this volume wait for the first
  const std::string shared = expand_volume(fleet.shared_code_dir, pods_.gpu.paths.volume);
  const std::string mark = pods_.gpu.paths.volume + "/.burst/sync/" + in_.job_id + ".code";
  auto marked = pods_.gpu.session->run_capture("cat " + shell_quote(mark) + " 2>/dev/null || true");
  if (!marked.ok()) return ctx_.failed(marked.error(), "sync", detail);
  std::string how = "copied from this job's one sync of the code on the shared volume";
  if (marked->rfind(in_.job_id, 0) != 0) {  // the first on this volume (or it is not shared)
    auto synced = sync_into(shared);
    if (!synced.ok()) return ctx_.failed(synced.error(), "sync", detail);
    const SyncStats* stats = &synced->first;
    const double secs = synced->second;
    if (Status st = pods_.gpu.session->write_file(mark, in_.job_id + "\n", 0644); !st.ok())
      return ctx_.failed(st.error(), "sync", detail);
    how = std::to_string(stats->files_sent) + " of " + std::to_string(stats->files_total) +
          " files sent (" + human_bytes(stats->bytes_sent) + ") to " + shared +
          ", this job's one sync on this volume";
    ctx_.say("synced " + how + " in " + std::to_string(secs).substr(0, 4) + " s, " +
             human_rate(stats->bytes_sent, secs));
  } else {
    ctx_.fault("mid-sync");
  }
  auto copied = pods_.gpu.session->run_capture("mkdir -p " + shell_quote(pods_.workdir) +
                                               " && cp -a " + shell_quote(shared + "/.") + " " +
                                               shell_quote(pods_.workdir) + "/ && echo copied");
  if (!copied.ok()) return ctx_.failed(copied.error(), "sync", detail);
  if (copied->find("copied") == std::string::npos)
    return ctx_.failed(
        make_error(ErrorCode::kRemoteFailed, "copy " + shared + " to " + pods_.workdir), "sync",
        detail);
  *detail = how + "; copied into " + pods_.workdir;
  ctx_.say("code in " + pods_.workdir + ": " + *detail);
  return ctx_.unless_stopped("sync", detail);
}

Result<std::pair<SyncStats, double>> Transfers::sync_into(const std::string& dir) {
  const MonoTime start = d_.clock.mono_now();
  const SyncTarget target{dir, manifest_path_for(pods_.gpu.paths.volume, dir)};
  auto stats = sync_code(*pods_.gpu.session, in_.code, target, [&](const SyncStats& s) {
    d_.console.progress(progress_line("sync", {s.files_sent, s.files_to_send, s.bytes_sent,
                                               s.bytes_to_send, seconds_since(d_.clock, start)}));
    ctx_.moving();
    ctx_.fault("mid-sync");
  });
  if (!stats.ok()) return stats.error();
  const double secs = seconds_since(d_.clock, start);
  (void)d_.store.add_transfer({in_.job_id, "sync", stats->files_sent, stats->bytes_sent,
                               static_cast<int64_t>(secs * 1000)});
  return std::make_pair(*stats, secs);
}

Outcome Transfers::pull(std::string* detail) {
  if (d_.interrupts() >= 2) return Outcome::kSkipped;
  if (in_.spec.artefacts.empty()) return Outcome::kSkipped;
  if (!pods_.gpu.session)
    return ctx_.failed(make_error(ErrorCode::kConnection, "no SSH session to the GPU pod"), "pull",
                       detail);
  const MonoTime start = d_.clock.mono_now();
  PullLimits limits;
  if (d_.config.pull_max_gib > 0 && d_.config.pull_max_gib < 1e9)
    limits.max_total_bytes = static_cast<uint64_t>(d_.config.pull_max_gib * (1ull << 30));
  auto result = pull_artefacts(
      *pods_.gpu.session, in_.spec.artefacts, pods_.workdir, pods_.gpu.paths.volume,
      [&](const PullResult& r) {
        d_.console.progress(progress_line(
            "pull", {r.files, r.files_total - r.files_current, r.bytes,
                     r.bytes_total - r.bytes_resumed, seconds_since(d_.clock, start)}));
        ctx_.moving();
        ctx_.fault("mid-pull");
      },
      limits, pods_.artefacts_since);
  if (!result.ok()) return ctx_.failed(result.error(), "pull", detail);
  const double secs = seconds_since(d_.clock, start);
  (void)d_.store.add_transfer({in_.job_id, "pull", result->files - result->files_current,
                               result->bytes, static_cast<int64_t>(secs * 1000)});
  for (const auto& p : result->local_paths) ctx_.say("pulled " + p);
  *detail = std::to_string(result->files) + " files, " + human_bytes(result->bytes) +
            " transferred, verified (sha256)";
  if (result->files_current > 0)
    *detail += ", " + std::to_string(result->files_current) + " already home";
  if (result->bytes_resumed > 0) *detail += ", resumed " + human_bytes(result->bytes_resumed);
  if (result->files_older > 0)
    *detail += ", " + std::to_string(result->files_older) + " older than this job left on the pod";
  ctx_.say("pulled " + *detail + " in " + std::to_string(secs).substr(0, 4) + " s, " +
           human_rate(result->bytes, secs));
  if (!result->failed.empty()) {
    for (const auto& f : result->failed) ctx_.say("error: " + f);
    return ctx_.failed(make_error(ErrorCode::kRemoteFailed, result->failed.front()), "pull",
                       detail);
  }
  if (!result->unmatched.empty() && ctx_.error().empty()) {
    return ctx_.failed(
        make_error(ErrorCode::kNotFound, "no file on the pod matched " + result->unmatched.front()),
        "pull", detail);
  }
  return Outcome::kOk;
}

}  // namespace burst
