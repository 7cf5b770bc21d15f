#include "spec/skypilot_buckets.h"

#include <algorithm>

namespace burst::spec {
namespace {

using sv = std::string_view;

std::string quote(sv s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A double-quoted shell word in which $NAME and ${NAME} expand (SkyPilot fills a bucket's name
// from envs: `name: $CHECKPOINT_BUCKET`; on the pod the env and secrets are set) and nothing
// else does.
std::string quote_env(sv s) {
  std::string q = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    const bool var = c == '$' && (next == '{' || next == '_' || (next >= 'a' && next <= 'z') ||
                                  (next >= 'A' && next <= 'Z'));
    if ((c == '$' && !var) || c == '"' || c == '\\' || c == '`') q += '\\';
    q += c;
  }
  return q + "\"";
}

// The bucket and path after "scheme://".
std::string bucket_path(const std::string& url) { return url.substr(url.find("://") + 3); }

// rclone's on-the-fly remote (https://rclone.org/docs/#connection-strings) for a bucket URL, and
// the variables it is run with. s3 and gcs read their credentials from the environment
// (env_auth: AWS_ACCESS_KEY_ID ...; RCLONE_GCS_SERVICE_ACCOUNT_CREDENTIALS); R2 is S3 at the
// account's endpoint (https://developers.cloudflare.com/r2/examples/rclone/).
struct Remote {
  std::string env;   // "NAME=value " words before rclone
  std::string spec;  // quoted
};

Remote remote_of(const SkyBucket& b) {
  const std::string scheme = bucket_scheme(b.url);
  if (scheme == "s3")
    return {"", quote_env(":s3,provider=AWS,env_auth=true:" + bucket_path(b.url))};
  if (scheme == "gs") return {"", quote_env(":gcs,env_auth=true:" + bucket_path(b.url))};
  return {
      "RCLONE_S3_ACCESS_KEY_ID=\"${R2_ACCESS_KEY_ID:-}\" "
      "RCLONE_S3_SECRET_ACCESS_KEY=\"${R2_SECRET_ACCESS_KEY:-}\" "
      "RCLONE_S3_ENDPOINT=\"https://${R2_ACCOUNT_ID:-}.r2.cloudflarestorage.com\" ",
      quote_env(":s3,provider=Cloudflare:" + bucket_path(b.url))};
}

constexpr char kInstall[] =
    "# file_mounts buckets through rclone (https://rclone.org), installed unless the pod has it;\n"
    "# their credentials are the job's secrets, set from your shell\n"
    "export PATH=\"$HOME/.local/bin:$PATH\"\n"
    "if ! command -v rclone >/dev/null 2>&1; then\n"
    "  if [ \"$(id -u)\" = 0 ] && command -v apt-get >/dev/null 2>&1 &&\n"
    "     ! { command -v curl && command -v unzip; } >/dev/null 2>&1; then\n"
    "    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl unzip "
    "\\\n"
    "      ca-certificates fuse3 >/dev/null\n"
    "  fi\n"
    "  case \"$(uname -m)\" in aarch64 | arm64) burst_arch=arm64 ;; *) burst_arch=amd64 ;; esac\n"
    "  burst_tmp=$(mktemp -d) && curl -fsSL -o \"$burst_tmp/rclone.zip\" \\\n"
    "    \"https://downloads.rclone.org/rclone-current-linux-$burst_arch.zip\" &&\n"
    "    mkdir -p \"$HOME/.local/bin\" &&\n"
    "    unzip -q -j -o \"$burst_tmp/rclone.zip\" '*/rclone' -d \"$HOME/.local/bin\" ||\n"
    "    { echo \"burst: file_mounts: could not install rclone\" >&2; exit 1; }\n"
    "  rm -rf \"$burst_tmp\"\n"
    "fi\n";

std::string marker(size_t i) {
  return "\"${TMPDIR:-/tmp}/burst-file-mount-" + std::to_string(i) + ".copied\"";
}

std::string fail(const std::string& what, const std::string& remote) {
  return " ||\n  { echo " + quote("burst: file_mounts " + remote + ": " + what) +
         " >&2; exit 1; }\n";
}

}  // namespace

bool is_url(std::string_view source) {
  const size_t p = source.find("://");
  return p != sv::npos && p > 0 && std::all_of(source.begin(), source.begin() + p, [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
         });
}

std::string bucket_scheme(std::string_view source) {
  if (!is_url(source)) return "";
  const std::string scheme(source.substr(0, source.find("://")));
  const sv rest = source.substr(scheme.size() + 3);
  if (rest.empty() || rest.front() == '/') return "";
  // Azure's blob URLs are https but not plain web files.
  if ((scheme == "https" || scheme == "http") &&
      rest.substr(0, rest.find('/')).find(".blob.core.windows.net") != sv::npos)
    return "";
  for (sv s : {sv("s3"), sv("gs"), sv("r2"), sv("https"), sv("http")})
    if (scheme == s) return scheme;
  return "";
}

std::string store_scheme(std::string_view store) {
  if (store == "s3") return "s3";
  if (store == "gcs" || store == "gs") return "gs";
  if (store == "r2") return "r2";
  return "";
}

std::vector<std::string> bucket_secret_names(const std::string& scheme) {
  if (scheme == "s3") return {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"};
  if (scheme == "gs") return {"RCLONE_GCS_SERVICE_ACCOUNT_CREDENTIALS"};
  if (scheme == "r2") return {"R2_ACCOUNT_ID", "R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY"};
  return {};
}

BucketScripts bucket_scripts(const std::vector<SkyBucket>& buckets,
                             std::string (*shell_path)(const std::string&)) {
  BucketScripts out;
  if (buckets.empty()) return out;
  out.setup = kInstall;
  for (size_t i = 0; i < buckets.size(); ++i) {
    const SkyBucket& b = buckets[i];
    const std::string dst = shell_path(b.remote);
    const std::string scheme = bucket_scheme(b.url);
    if (scheme == "https" || scheme == "http") {  // one file, read-only: always a copy
      out.setup += "mkdir -p \"$(dirname " + dst + ")\" && rclone copyurl " + quote(b.url) + " " +
                   dst + fail("could not download", b.remote);
      continue;
    }
    const Remote r = remote_of(b);
    if (b.mode == BucketMode::kCopy) {
      out.setup += "mkdir -p \"$(dirname " + dst + ")\" && " + r.env + "rclone copyto " + r.spec +
                   " " + dst + fail("could not copy the bucket", b.remote);
      continue;
    }
    const std::string cache = b.mode == BucketMode::kMountCached ? "full" : "writes";
    // SkyPilot creates a bucket named in the file when it is missing; so does rclone mkdir.
    out.setup += "mkdir -p " + dst + " && { " + r.env + "rclone mkdir " + r.spec +
                 " 2>/dev/null || true; }\n";
    out.setup +=
        "if [ -e /dev/fuse ] && { command -v fusermount3 || command -v fusermount; } "
        ">/dev/null 2>&1 &&\n  " +
        r.env + "rclone mount " + r.spec + " " + dst + " --daemon --vfs-cache-mode " + cache +
        " 2>/dev/null; then\n  echo " +
        quote("burst: file_mounts " + b.remote + ": mounted (rclone mount)") +
        " >&2\nelse\n  echo " +
        quote("burst: file_mounts " + b.remote +
              ": no FUSE on this pod: copied in now, copied back when run ends") +
        " >&2\n  " + r.env + "rclone copy " + r.spec + " " + dst + " && touch " + marker(i) +
        fail("could not copy the bucket", b.remote) + "fi\n";
    out.run_end += "if [ -e " + marker(i) + " ]; then\n  " + r.env + "rclone copy " + dst + " " +
                   r.spec + " || { echo " +
                   quote("burst: file_mounts " + b.remote + ": could not copy back") +
                   " >&2; [ \"$burst_rc\" = 0 ] && burst_rc=1; }\nelse\n  fusermount3 -u " + dst +
                   " 2>/dev/null || fusermount -u " + dst + " 2>/dev/null || true\nfi\n";
  }
  if (!out.run_end.empty())
    out.run_end =
        "# file_mounts in MOUNT mode: copy back what the pod could not mount, unmount "
        "the rest\nexport PATH=\"$HOME/.local/bin:$PATH\"\n" +
        out.run_end;
  return out;
}

std::string run_then(const std::string& run, const std::string& run_end) {
  if (run_end.empty()) return run;
  std::string body = run;
  while (!body.empty() && body.back() == '\n') body.pop_back();
  return "(\n" + body + "\n)\nburst_rc=$?\n" + run_end + "exit \"$burst_rc\"\n";
}

}  // namespace burst::spec
