#include "job/replica_step.h"

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
      "rm -f " +
      d + "/run.r*.rc\n";
  for (int i = 0; i < l.replicas; ++i) {
    const std::string r = std::to_string(i);
    const std::string dev = shell_quote(replica_devices(l, i));
    s += "(\n  export CUDA_VISIBLE_DEVICES=" + dev + " HIP_VISIBLE_DEVICES=" + dev +
         " BURST_REPLICA_INDEX=" + r + " BURST_REPLICA_COUNT=" + n + "\n";
    if (items_files)
      s += "  export BURST_ITEMS_FILE=" + shell_quote(replica_items_path(pod_dir, i)) + "\n";
    // stdout to the outer prefixer through fd 3, stderr to the inner one, each back on its stream.
    s += "  { { \"$burst_sh\" -e " + shell_quote(replica_script_path(pod_dir)) + "; echo $? > " +
         d + "/run.r" + r + ".rc; } 2>&1 1>&3 3>&- | burst_prefix '[r" + r +
         "] ' 1>&2 3>&-; } 3>&1 | burst_prefix '[r" + r + "] '\n) &\n";
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

}  // namespace burst
