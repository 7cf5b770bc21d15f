#include "docker_shim.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "local/local_provider.h"

namespace burst::fakecloud {

namespace fs = std::filesystem;

namespace {

// Illustrative identities: what each official image's /etc/os-release and ENV look like.
ImageIdentity debian12(std::string name, std::string python) {
  ImageIdentity i;
  i.name = std::move(name);
  i.pretty_name = "Debian GNU/Linux 12 (bookworm)";
  i.os_release =
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
      "VERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n";
  i.python_version = std::move(python);
  if (i.python_version.empty()) {
    i.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  } else {
    i.env = {"PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
             "PYTHON_VERSION=" + i.python_version};
  }
  return i;
}

ImageIdentity ubuntu(std::string name, const std::string& version, const std::string& codename) {
  ImageIdentity i;
  i.name = std::move(name);
  i.pretty_name = "Ubuntu " + version + " LTS";
  i.os_release = "PRETTY_NAME=\"" + i.pretty_name + "\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"" +
                 version.substr(0, 5) + "\"\nVERSION_CODENAME=" + codename + "\nID=ubuntu\n";
  i.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  return i;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void replace_all(std::string* s, const std::string& from, const std::string& to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size()))
    s->replace(at, from.size(), to);
}

// Writes through a temporary name, so a shim that is running never reads a half-written file.
Status write_file(const fs::path& path, const std::string& text, mode_t mode) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) return make_error(ErrorCode::kInternal, "fakecloud: write " + tmp.string());
  }
  ::chmod(tmp.c_str(), mode);
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    return make_error(ErrorCode::kInternal, "fakecloud: " + path.string() + ": " + ec.message());
  return Status::Ok();
}

constexpr const char* kShim = R"SHIM(#!/bin/bash
# burst-fakecloud: the emulated Lambda VM's docker (fakecloud/docker_shim.h). Not Docker: it
# accepts only the forms burst uses and refuses anything else loudly.
set -u
ROOT=@ROOT@
MARKER=@MARKER@
record() {
  local line="" a
  for a in "$@"; do line+="$(printf '%q' "$a") "; done
  printf '%s\n' "${line% }" >>"$ROOT/calls.log"
}
die() { printf '%s\n' "$1" >&2; exit "${2:-125}"; }
usage() { die "unknown flag: $2
See 'docker $1 --help'."; }
record docker "$@"
[ -n "${BURST_POD_DIR:-}" ] || die "fakecloud docker: BURST_POD_DIR is not set (not an emulated VM)"
state="$BURST_POD_DIR/.fakedocker"
mkdir -p "$state/pulled" "$state/names" || exit 125

canon() {  # docker's short form of a reference: no docker.io/library/, a tag
  local r="$1"
  r="${r#docker.io/library/}"
  r="${r#docker.io/}"
  case "${r##*/}" in *:* | *@*) ;; *) r="$r:latest" ;; esac
  printf '%s' "$r"
}
image_dir() {
  local want n d
  want="$(canon "$1")"
  while IFS=$'\t' read -r n d; do
    if [ "$n" = "$want" ]; then printf '%s' "$d"; return 0; fi
  done <"$ROOT/images.tsv"
  return 1
}
repo_known() {
  local n d
  while IFS=$'\t' read -r n d; do [ "${n%:*}" = "${1%:*}" ] && return 0; done <"$ROOT/images.tsv"
  return 1
}
key() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
vm_fault() { [[ " ${FAKECLOUD_VM_FAULTS:-} " == *" $1 "* ]]; }
# The runtimes this VM's docker lists (docker info's .Runtimes): nvidia unless the VM came
# without it (Faults::no_nvidia_runtime) and no nvidia-ctk configure + restart loaded it since.
runtimes() {
  if vm_fault no-nvidia-runtime && [ ! -e "$state/nvidia-loaded" ]; then
    printf '%s\n' '{"io.containerd.runc.v2":{"path":"runc"},"runc":{"path":"runc"}}'
  else
    printf '%s\n' '{"io.containerd.runc.v2":{"path":"runc"},"nvidia":{"args":[],"path":"nvidia-container-runtime"},"runc":{"path":"runc"}}'
  fi
}
# pull IMAGE PREFIX EXIT: messages as docker's; progress on stdout (run: on stderr).
do_pull() {
  local c path
  c="$(canon "$1")"
  if ! image_dir "$1" >/dev/null; then
    repo_known "$c" &&
      die "${2}Error response from daemon: manifest for $c not found: manifest unknown: manifest unknown" "$3"
    die "${2}Error response from daemon: pull access denied for ${c%:*}, repository does not exist or may require 'docker login': denied: requested access to the resource is denied" "$3"
  fi
  path="${c%:*}"
  case "$path" in */*) ;; *) path="library/$path" ;; esac
  if [ -e "$state/pulled/$(key "$c")" ]; then
    printf 'Status: Image is up to date for %s\n' "$c"
  else
    printf '%s: Pulling from %s\n' "${c##*:}" "$path"
    printf 'Digest: sha256:%s\n' "$(key "$c$c$c$c" | head -c 64)"
    printf 'Status: Downloaded newer image for %s\n' "$c"
    : >"$state/pulled/$(key "$c")"
  fi
  printf 'docker.io/%s:%s\n' "$path" "${c##*:}"
}

[ $# -ge 1 ] || die "fakecloud docker: no command (burst runs info, pull, run, kill)"
cmd="$1"
shift
case "$cmd" in
info)
  if [ $# -eq 2 ] && [ "$1" = --format ] && [ "$2" = '{{json .Runtimes}}' ]; then
    runtimes
    exit 0
  fi
  [ $# -eq 0 ] || usage info "$1"
  echo "Server Version: burst-fakecloud (emulated docker; fakecloud/docker_shim.h)"
  ;;
pull)
  [ $# -ge 1 ] || die '"docker pull" requires exactly 1 argument.'
  case "$1" in -*) usage pull "$1" ;; esac
  [ $# -eq 1 ] || die '"docker pull" requires exactly 1 argument.'
  do_pull "$1" "" 1
  ;;
kill)
  [ $# -ge 1 ] || die '"docker kill" requires at least 1 argument.'
  case "$1" in -*) usage kill "$1" ;; esac
  [ $# -eq 1 ] || die "fakecloud docker: kill takes one container name (burst's form)"
  p="$(cat "$state/names/$1" 2>/dev/null)"
  if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
    printf '%s\n' "$1"
    exit 0
  fi
  die "Error response from daemon: Cannot kill container: $1: No such container: $1" 1
  ;;
run)
  name="" envfile="" workdir="" gpus="" mounts=()
  while [ $# -gt 0 ]; do
    case "$1" in
    --rm | --init) ;;
    --name | --gpus | --env-file | -v | -w)
      [ $# -ge 2 ] || die "flag needs an argument: $1"
      case "$1" in
      --name) name="$2" ;;
      --gpus)
        [ "$2" = all ] || die "fakecloud docker: --gpus $2: only --gpus all is emulated"
        gpus=all
        ;;
      --env-file) envfile="$2" ;;
      -v) mounts+=("$2") ;;
      -w) workdir="$2" ;;
      esac
      shift
      ;;
    -*) usage run "$1" ;;
    *) break ;;
    esac
    shift
  done
  [ $# -ge 1 ] || die '"docker run" requires at least 1 argument.'
  img="$1"
  shift
  [ $# -ge 1 ] || die "fakecloud docker: run without a command (the image's CMD is not emulated)"
  [ -n "$name" ] || die "fakecloud docker: run without --name (burst always names its containers)"
  [[ "$name" =~ ^[a-zA-Z0-9][a-zA-Z0-9_.-]+$ ]] ||
    die "docker: Error response from daemon: Invalid container name ($name), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed."
  # docker's answer when no runtime can give a container GPUs (the NVIDIA runtime is missing).
  if [ -n "$gpus" ] && ! runtimes | grep -q '"nvidia"'; then
    die 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].'
  fi
  [ -n "$envfile" ] || die "fakecloud docker: run without --env-file (burst passes the env in one)"
  [ -f "$envfile" ] || die "docker: open $envfile: no such file or directory."
  record env-file-mode "$(stat -c %a "$envfile")"
  for m in "${mounts[@]}"; do
    src="${m%%:*}"
    dst="${m#*:}"
    [ "$src" = "$dst" ] && [ "${src#/}" != "$src" ] ||
      die "fakecloud docker: -v $m: the emulator binds an absolute path only at itself"
    mkdir -p "$src" || exit 125
  done
  [ "${workdir#/}" != "$workdir" ] || die "docker: Error response from daemon: the working directory '$workdir' is invalid, it needs to be an absolute path."
  if ! dir="$(image_dir "$img")" || [ ! -e "$state/pulled/$(key "$(canon "$img")")" ]; then
    printf "Unable to find image '%s' locally\n" "$(canon "$img")" >&2
    do_pull "$img" "docker: " 125 >&2
    dir="$(image_dir "$img")"
  fi
  p="$(cat "$state/names/$name" 2>/dev/null)"
  if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
    die "docker: Error response from daemon: Conflict. The container name \"/$name\" is already in use."
  fi
  envs=("$MARKER=${!MARKER-}" "HOME=$HOME" "HOSTNAME=$(key "$name" | head -c 12)")
  path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  while IFS= read -r l; do
    case "$l" in PATH=*) path="${l#PATH=}" ;; ?*) envs+=("$l") ;; esac
  done <"$dir/env"
  envs+=("PATH=$dir/bin:$path")
  while IFS= read -r l || [ -n "$l" ]; do
    l="${l#"${l%%[![:space:]]*}"}"
    case "$l" in '' | '#'*) continue ;; *=*) envs+=("$l") ;; *) [ -n "${!l+x}" ] && envs+=("$l=${!l}") ;; esac
  done <"$envfile"
  mkdir -p "$workdir" && cd "$workdir" || exit 126
  # A file system that maps root to nobody (Faults::volume_root_squash): the container's
  # processes write as uid 65534, everywhere (the emulator has no mount namespace).
  runas=()
  if vm_fault root-squash; then
    [ "$(id -u)" = 0 ] || die "fakecloud docker: root-squash is emulated only when the VM's user is root"
    runas=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
  # The container: its own session, as it is no process of the client's group.
  setsid "${runas[@]}" env -i "${envs[@]}" "$@" </dev/null &
  child=$!
  trap 'kill -TERM "$child" 2>/dev/null' TERM
  trap 'kill -INT "$child" 2>/dev/null' INT
  printf '%s\n' "$child" >"$state/names/$name"
  while :; do
    wait "$child"
    rc=$?
    kill -0 "$child" 2>/dev/null && continue
    wait "$child" 2>/dev/null
    r2=$?
    [ "$r2" -ne 127 ] && rc=$r2
    break
  done
  rm -f "$state/names/$name"
  exit "$rc"
  ;;
*) die "docker: '$cmd' is not a docker command (the emulated VM's docker knows info, pull, run, kill)." ;;
esac
)SHIM";

// The VM's nvidia-ctk and systemctl, for the NVIDIA runtime's configuration (Faults::
// no_nvidia_runtime): only the two commands of the NVIDIA Container Toolkit's "Configuring
// Docker" step, as root. The configure writes daemon.json (a mark in the VM's docker state); the
// restart makes docker load it.
constexpr const char* kNvidiaCtk = R"SHIM(#!/bin/bash
# burst-fakecloud: the emulated Lambda VM's nvidia-ctk (fakecloud/docker_shim.h).
set -u
ROOT=@ROOT@
printf 'nvidia-ctk %s\n' "$*" >>"$ROOT/calls.log"
[ -n "${BURST_POD_DIR:-}" ] || { echo "fakecloud nvidia-ctk: BURST_POD_DIR is not set" >&2; exit 1; }
if [ $# -ne 3 ] || [ "$1" != runtime ] || [ "$2" != configure ] || [ "$3" != --runtime=docker ]; then
  echo "fakecloud nvidia-ctk: only 'runtime configure --runtime=docker' is emulated" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo 'ERRO[0000] unable to flush config: unable to open /etc/docker/daemon.json for writing: open /etc/docker/daemon.json: permission denied' >&2
  exit 1
fi
mkdir -p "$BURST_POD_DIR/.fakedocker" && : >"$BURST_POD_DIR/.fakedocker/daemon-json-nvidia"
echo 'INFO[0000] Wrote updated config to /etc/docker/daemon.json'
echo 'INFO[0000] It is recommended that docker daemon be restarted.'
)SHIM";

constexpr const char* kSystemctl = R"SHIM(#!/bin/bash
# burst-fakecloud: the emulated Lambda VM's systemctl (fakecloud/docker_shim.h).
set -u
ROOT=@ROOT@
printf 'systemctl %s\n' "$*" >>"$ROOT/calls.log"
[ -n "${BURST_POD_DIR:-}" ] || { echo "fakecloud systemctl: BURST_POD_DIR is not set" >&2; exit 1; }
if [ $# -ne 2 ] || [ "$1" != restart ] || [ "$2" != docker ]; then
  echo "fakecloud systemctl: only 'restart docker' is emulated" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo 'Failed to restart docker.service: Access denied' >&2
  exit 1
fi
state="$BURST_POD_DIR/.fakedocker"
if [ -e "$state/daemon-json-nvidia" ]; then : >"$state/nvidia-loaded"; fi
)SHIM";

}  // namespace

const std::vector<ImageIdentity>& image_catalogue() {
  static const std::vector<ImageIdentity> kImages = {
      debian12("python:3.11-slim", "3.11.14"), debian12("python:3.12-slim", "3.12.12"),
      debian12("debian:12", ""), ubuntu("ubuntu:22.04", "22.04.5", "jammy"),
      ubuntu("ubuntu:24.04", "24.04.3", "noble")};
  return kImages;
}

Result<std::string> install_docker_shim(const std::string& root) {
  std::error_code ec;
  const fs::path r = fs::absolute(root, ec);
  fs::create_directories(r / "bin", ec);
  std::string python;  // what the image's python runs, beyond --version: this machine's
  for (const char* p : {"/usr/bin/python3", "/usr/local/bin/python3"})
    if (::access(p, X_OK) == 0) python = p;
  std::string table;
  for (size_t n = 0; n < image_catalogue().size(); ++n) {
    const ImageIdentity& i = image_catalogue()[n];
    const fs::path dir = r / "images" / std::to_string(n);
    fs::create_directories(dir / "bin", ec);
    fs::create_directories(dir / "etc", ec);
    if (ec)
      return make_error(ErrorCode::kInternal, "fakecloud: " + dir.string() + ": " + ec.message());
    std::string env;
    for (const auto& e : i.env) env += e + "\n";
    Status st = write_file(dir / "env", env, 0644);
    if (st.ok()) st = write_file(dir / "etc" / "os-release", i.os_release, 0644);
    if (!i.python_version.empty()) {
      const std::string run = python.empty()
                                  ? "echo 'python3: this machine has no python3' >&2; exit 127"
                                  : "exec " + quote(python) + " \"$@\"";
      const std::string wrapper = "#!/bin/sh\n# " + i.name +
                                  "'s python (fakecloud/docker_shim.h)\ncase \"${1:-}\" in "
                                  "--version | -V) echo 'Python " +
                                  i.python_version + "'; exit 0 ;; esac\n" + run + "\n";
      const std::string minor = i.python_version.substr(0, i.python_version.rfind('.'));
      for (const std::string& b : {std::string("python3"), std::string("python"), "python" + minor})
        if (st.ok()) st = write_file(dir / "bin" / b, wrapper, 0755);
    }
    if (!st.ok()) return st.error();
    table += i.name + "\t" + dir.string() + "\n";
  }
  if (Status st = write_file(r / "images.tsv", table, 0644); !st.ok()) return st.error();
  std::string shim = kShim;
  replace_all(&shim, "@ROOT@", quote(r.string()));
  replace_all(&shim, "@MARKER@", kLocalPodEnv);
  if (Status st = write_file(r / "bin" / "docker", shim, 0755); !st.ok()) return st.error();
  for (const auto& [name, text] :
       {std::pair<const char*, const char*>{"nvidia-ctk", kNvidiaCtk}, {"systemctl", kSystemctl}}) {
    std::string tool = text;
    replace_all(&tool, "@ROOT@", quote(r.string()));
    if (Status st = write_file(r / "bin" / name, tool, 0755); !st.ok()) return st.error();
  }
  return (r / "bin").string();
}

}  // namespace burst::fakecloud
