// SkyPilot `file_mounts` whose source is a bucket (s3://, gs://, r2://, https://), or a storage
// mapping (source/name/store/mode), made into shell lines that rclone (https://rclone.org) runs
// on the pod: COPY copies the bucket onto the pod before setup; MOUNT and MOUNT_CACHED mount it
// where the pod has FUSE, and elsewhere copy it in before setup and copy it back when run ends.
// Credentials are secrets read from the user's shell when set (never written into a script);
// the scripts name them as variables only. Internal to src/spec/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "burst/spec.h"

namespace burst::spec {

enum class BucketMode { kCopy, kMount, kMountCached };

struct SkyBucket {
  std::string remote;  // path on the pod, as written ("~/x" allowed)
  std::string url;     // s3://bucket/path, gs://..., r2://..., https://...
  BucketMode mode = BucketMode::kCopy;
  SourcePos pos;
};

// The scheme of a bucket URL burst can read ("s3", "gs", "r2", "https", "http"), or "" when the
// source is not a URL burst reads (a local path, or an unsupported scheme: see is_url).
std::string bucket_scheme(std::string_view source);

// Whether `source` is a URL at all ("scheme://...").
bool is_url(std::string_view source);

// SkyPilot's `store:` value (s3, gcs, r2) as a URL scheme ("s3", "gs", "r2"); "" when unknown.
std::string store_scheme(std::string_view store);

// The credentials a bucket of this scheme reads, as secret names (optional: a public bucket
// needs none).
std::vector<std::string> bucket_secret_names(const std::string& scheme);

struct BucketScripts {
  std::string setup;    // first lines of setup: install rclone, then copy or mount each bucket
  std::string run_end;  // after run (MOUNT without FUSE): copy back, unmount; "" when none
};

// The lines for `buckets`; `shell_path` turns a pod path into a shell word.
BucketScripts bucket_scripts(const std::vector<SkyBucket>& buckets,
                             std::string (*shell_path)(const std::string&));

// `run` wrapped so `run_end` runs after it whatever its exit status, which it keeps.
std::string run_then(const std::string& run, const std::string& run_end);

}  // namespace burst::spec
