// A warm volume's read rate, measured on the pod (issue 18: weight load from the volume's measured
// rate). When a job finds every `creates:` path of its prepare step already on the volume (the
// step is skipped), the pod reads a bounded part of the largest file those paths hold and times
// it; the job records the read as its "volume-read" transfer (plan/load_history.h learns each
// provider's warm rate from those records).
//
// What it measures: the volume, not the pod's memory. The pod reads at most kVolumeReadMaxBytes
// of the file with direct I/O (dd iflag=direct: O_DIRECT, no page cache). Where the file system
// refuses O_DIRECT (tmpfs, some FUSE mounts), it first asks the kernel to drop the file's cached
// pages (dd iflag=nocache count=0: posix_fadvise DONTNEED, no root needed) and reads normally; the
// answer says which ("direct" or "dropped"), and a file system that ignores the advice would
// still be read from memory, which the plan cannot tell apart. Neither possible: no measurement.
// The pod times the read itself (date +%s%N around dd), so the SSH round trip is not in it.
//
// The pod's answer is untrusted: one line "burst-volume-read <direct|dropped> <size> <t0> <t1>",
// at most kMaxAnswer bytes read (job/step_answers.h), numbers of at most 19 digits, t0 <= t1 and
// less than an hour apart. The read is bounded on burst's side by kVolumeReadDeadlineS on the
// job's clock, checked while waiting whether or not the pod answers. Any failure is no sample,
// never a failed job.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "burst/clock.h"
#include "burst/remote.h"
#include "burst/result.h"

namespace burst {

inline constexpr int64_t kVolumeReadMaxBytes = 256LL * 1024 * 1024;  // 64 blocks of 4 MiB
inline constexpr double kVolumeReadDeadlineS = 20;

struct VolumeRead {
  bool direct = false;  // O_DIRECT; false: the file's cached pages were dropped first
  int64_t bytes = 0;    // min(file size, kVolumeReadMaxBytes)
  int64_t nanos = 0;    // the read's time on the pod
};

// The shell command (POSIX sh, GNU coreutils/findutils) that reads the largest regular file under
// the `creates` paths (relative to `volume`, symlinks followed) and prints the answer line; it
// prints nothing when there is no file or neither read works.
std::string volume_read_command(const std::string& volume, const std::vector<std::string>& creates);

// Parses the answer line (a trailing newline allowed, nothing else). kRemoteFailed otherwise.
Result<VolumeRead> parse_volume_read(std::string_view text);

// Runs the command on `session` and parses its answer; kInterrupted when `should_stop` says so or
// kVolumeReadDeadlineS passed on `clock`, kRemoteFailed when the pod printed no measurement.
Result<VolumeRead> measure_volume_read(RemoteSession& session, const std::string& volume,
                                       const std::vector<std::string>& creates, Clock& clock,
                                       const std::function<bool()>& should_stop);

// "volume read 256 MiB in 0.21 s: 1.3 GB/s (direct I/O)".
std::string volume_read_summary(const VolumeRead& r);

// The milliseconds the store records for the read (rounded up, at least 1).
int64_t volume_read_millis(const VolumeRead& r);

}  // namespace burst
