#include "job/replica_step.h"

#include "job/replica_stats.h"
#include "plan/worker_shards.h"
#include "util/shell.h"

namespace burst {

std::string replica_script_path(const std::string& pod_dir) { return pod_dir + "/run.replica.sh"; }

std::string replica_items_path(const std::string& pod_dir, int index) {
  return pod_dir + "/items.r" + std::to_string(index) + ".txt";
}

std::string replica_wrapper(const PodLayout& l, const std::string& pod_dir, bool items_files) {
  const std::string d = shell_quote(pod_dir);
  const std::string n = std::to_string(l.replicas);
  // The copies run as the step itself does (bash -e, sh -e without bash). A line gets its prefix
  // from awk where the image has it (every line as it comes), else from a read loop.
  std::string s =
      "set +e\n"
      "if command -v bash >/dev/null 2>&1; then burst_sh=bash; else burst_sh=sh; fi\n"
      "burst_prefix() {\n"
      "  if command -v awk >/dev/null 2>&1; then awk -v p=\"$1\" '{ print p $0; fflush() }'\n"
      "  else while IFS= read -r l || [ -n \"$l\" ]; do printf '%s%s\\n' \"$1\" \"$l\"; done\n"
      "  fi\n"
      "}\n"
      // Utilisation samples (job/replica_stats.h): the sum and count over the replica's cards,
      // one nvidia-smi query now and every 5 s, the latest kept in $2 (temp file and rename).
      "burst_sample() {\n"
      "  s=0; n=0; burst_sleep=\n"
      // Stopped (TERM) while it waits: its sleep goes with it, no process outlives the step.
      "  trap '[ -n \"$burst_sleep\" ] && kill \"$burst_sleep\" 2>/dev/null; exit 0' TERM\n"
      "  while :; do\n"
      "    for v in $(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits "
      "-i \"$1\" 2>/dev/null); do\n"
      "      case $v in ''|*[!0-9]*) ;; *) s=$((s + v)); n=$((n + 1)) ;; esac\n"
      "    done\n"
      "    [ \"$n\" -gt 0 ] && printf 'util %s %s\\n' \"$s\" \"$n\" > \"$2.tmp\" && "
      "mv -f \"$2.tmp\" \"$2\"\n"
      "    sleep 5 & burst_sleep=$!; wait \"$burst_sleep\"\n"
      "  done\n"
      "}\n"
      // The replica's facts when its copy exited: $1 index, $2 start, $3 end, $4 its samples.
      "burst_stats() {\n"
      "  rc=$(cat " +
      d +
      "/run.r$1.rc 2>/dev/null || echo 1)\n"
      "  case $rc in ''|*[!0-9]*) rc=1 ;; esac\n"
      "  { printf 'burst-replica 1\\nstart %s\\nend %s\\nexit %s\\n' \"$2\" \"$3\" \"$rc\"\n"
      "    if [ -s \"$4\" ]; then cat \"$4\"; fi; } > " +
      d + "/run.r$1.stats.tmp && mv -f " + d + "/run.r$1.stats.tmp " + d +
      "/run.r$1.stats\n"
      "}\n"
      "rm -f " +
      d + "/run.r*.rc " + d + "/run.r*.stats " + d + "/run.r*.util\n";
  for (int i = 0; i < l.replicas; ++i) {
    const std::string r = std::to_string(i);
    const std::string dev = shell_quote(replica_devices(l, i));
    s += "(\n  export CUDA_VISIBLE_DEVICES=" + dev + " HIP_VISIBLE_DEVICES=" + dev +
         " BURST_REPLICA_INDEX=" + r + " BURST_REPLICA_COUNT=" + n + "\n";
    if (items_files)
      s += "  export BURST_ITEMS_FILE=" + shell_quote(replica_items_path(pod_dir, i)) + "\n";
    const std::string util = d + "/run.r" + r + ".util";
    s += "  burst_t0=$(date +%s) burst_sampler=\n";
    s += "  if command -v nvidia-smi >/dev/null 2>&1; then\n    burst_sample " + dev + " " + util +
         " </dev/null >/dev/null 2>&1 &\n    burst_sampler=$!\n  fi\n";
    // stdout to the outer prefixer through fd 3, stderr to the inner one, each back on its stream.
    s += "  { { \"$burst_sh\" -e " + shell_quote(replica_script_path(pod_dir)) + "; echo $? > " +
         d + "/run.r" + r + ".rc; } 2>&1 1>&3 3>&- | burst_prefix '[r" + r +
         "] ' 1>&2 3>&-; } 3>&1 | burst_prefix '[r" + r + "] '\n";
    s += "  burst_t1=$(date +%s)\n";
    s += "  [ -n \"$burst_sampler\" ] && kill \"$burst_sampler\" 2>/dev/null\n";
    s += "  burst_stats " + r + " \"$burst_t0\" \"$burst_t1\" " + util + "\n) &\n";
  }
  s += "wait\nburst_rc=0\n";
  s += "i=0\nwhile [ \"$i\" -lt " + n + " ]; do\n";
  s += "  rc=$(cat " + d + "/run.r$i.rc 2>/dev/null || echo 1)\n";
  s += "  case $rc in ''|*[!0-9]*) rc=1 ;; esac\n";
  s += "  if [ \"$rc\" != 0 ]; then\n";
  s += "    echo \"burst: replica $i of " + n + " exited $rc\" >&2\n";
  s += "    [ \"$burst_rc\" = 0 ] && burst_rc=$rc\n";
  s += "  fi\n  i=$((i + 1))\ndone\nexit $burst_rc\n";
  return s;
}

Result<std::string> prepare_replicas(RemoteSession& session, const PodPaths& paths,
                                     const PodLayout& l, const std::string& script,
                                     const std::vector<std::string>* items) {
  for (int i = 0; items && i < l.replicas; ++i) {
    std::string text;
    for (const std::string& item : shard_of(*items, i, l.replicas)) text += item + "\n";
    if (Status st = session.write_file(replica_items_path(paths.pod_dir, i), text, 0644); !st.ok())
      return st.error();
  }
  if (Status st = session.write_file(replica_script_path(paths.pod_dir), script + "\n", 0700);
      !st.ok())
    return st.error();
  return replica_wrapper(l, paths.pod_dir, items != nullptr);
}

std::vector<ReplicaRecord> read_replica_records(RemoteSession& session, const PodPaths& paths,
                                                const PodLayout& l, const ReplicaRecord& base,
                                                const std::vector<std::string>* items,
                                                std::string* skipped) {
  std::vector<int> indexes;
  std::vector<ReplicaStats> stats;
  std::vector<std::string> gpus;
  std::vector<int64_t> counts;
  skipped->clear();
  for (int i = 0; i < l.replicas; ++i) {
    gpus.push_back(replica_devices(l, i));
    counts.push_back(items ? static_cast<int64_t>(shard_of(*items, i, l.replicas).size()) : 0);
    // One byte past the limit, so a longer file is refused rather than cut.
    auto text = session.run_capture("head -c " + std::to_string(kReplicaStatsMaxBytes + 1) +
                                    " -- " + shell_quote(replica_stats_path(paths.pod_dir, i)) +
                                    " 2>/dev/null; true");
    Result<ReplicaStats> parsed =
        text.ok() ? parse_replica_stats(*text) : Result<ReplicaStats>(text.error());
    if (parsed.ok()) {
      indexes.push_back(i);
      stats.push_back(*parsed);
    } else {
      *skipped += (skipped->empty() ? "" : "; ") + std::string("replica ") + std::to_string(i) +
                  ": " + parsed.error().message;
    }
  }
  ReplicaRecord b = base;
  b.replicas = l.replicas;
  return replica_records(b, indexes, stats, gpus, counts);
}

}  // namespace burst
