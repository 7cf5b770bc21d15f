#!/usr/bin/env bash
# Checks burst's drivers and burst-fakecloud's emulators against the providers' official OpenAPI
# specs (a developer tool, run by hand; the specs are not in this repository):
#
#   tools/openapi_check.sh ../shared/provider-apis [BUILD_DIR] [PROVIDER...]
#
# For each of runpod, lambda, vast (or the ones named): starts burst-fakecloud for that provider,
# puts tools/openapi_proxy.py (built from the provider's spec) in front of it, points burst's
# base_url at the proxy, and runs `burst offers`, a full `burst run examples/tts-render.yaml`,
# `burst check`, `burst volumes`, `burst reap` and `burst offers` with a wrong key through it.
# Prints the calls and violation counts per provider; the violations (one JSON line each) and
# the proxy's summary are kept in the printed work dir. Violations that are defects of the
# published spec itself (tools/openapi_spec_defects.json; the evidence is in docs/providers.md,
# "Validated against the official OpenAPI specs") are counted apart.
# Exit status: 0 when every command succeeded and every violation is a listed spec defect.
set -u
specs=${1:?usage: tools/openapi_check.sh SPECS_DIR [BUILD_DIR] [PROVIDER...]}
build=${2:-build}
shift $(($# >= 2 ? 2 : 1))
providers=("$@")
[ ${#providers[@]} -eq 0 ] && providers=(runpod lambda vast)
src=$(cd "$(dirname "$0")/.." && pwd)
specs=$(cd "$specs" && pwd)
build=$(cd "$build" && pwd)
root=$(mktemp -d /tmp/burst-openapi-XXXXXX)
echo "work dir: $root"

declare -A spec_of=([runpod]=runpod-rest-v2/openapi.json [lambda]=lambda/openapi-1.8.3.json
                    [vast]=vast/openapi.yaml)
status=0
pids=()
# shellcheck disable=SC2317  # called by the trap
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

# Waits for "listening on URL" in FILE; prints URL.
wait_url() {
  local file=$1
  for _ in $(seq 1 100); do
    url=$(grep -o 'listening on http://[0-9.:]*' "$file" 2>/dev/null | head -1 | cut -d' ' -f3)
    [ -n "$url" ] && { echo "$url"; return 0; }
    sleep 0.1
  done
  echo "no 'listening on' in $file: $(cat "$file")" >&2
  return 1
}

for p in "${providers[@]}"; do
  dir=$root/$p
  mkdir -p "$dir/config" "$dir/work" "$dir/state"
  var=$(echo "${p}_API_KEY" | tr '[:lower:]' '[:upper:]')
  key="openapi-check-${p}-key"
  # The emulator accepts only this key (as the real API accepts only yours).
  env "$var=$key" "$build/burst-fakecloud" --port 0 --state-dir "$dir/fakecloud" \
    --boot-delay 1 --providers "$p" >"$dir/fakecloud.log" 2>&1 &
  fc_pid=$!
  pids+=("$fc_pid")
  fc=$(wait_url "$dir/fakecloud.log") || { status=1; continue; }
  python3 "$src/tools/openapi_proxy.py" --spec "$specs/${spec_of[$p]}" --upstream "$fc/$p" \
    --listen 127.0.0.1:0 --log "$dir/violations.jsonl" --summary "$dir/summary.json" \
    --defects "$src/tools/openapi_spec_defects.json" \
    >"$dir/proxy.log" 2>&1 &
  proxy_pid=$!
  pids+=("$proxy_pid")
  proxy=$(wait_url "$dir/proxy.log") || { status=1; continue; }
  {
    echo "providers:"
    echo "  $p:"
    echo "    base_url: $proxy"
    # Lambda's login user is ubuntu; the emulator's loopback sshd accepts only its own user.
    [ "$p" = lambda ] && echo "    ssh_user: $(id -un)"
  } >"$dir/config/config.yaml"
  cp -r "$src/examples/tts-render" "$src/examples/tts-render.yaml" "$dir/work/"
  # Each step: the exit status expected, the key burst uses, the command. The last one shows
  # the emulator's documented error bodies to the proxy: a wrong key must exit 3.
  for step in "0|$key|offers --provider $p" \
              "0|$key|run $dir/work/tts-render.yaml --provider $p --yes" \
              "0|$key|check" "0|$key|volumes" "0|$key|reap" \
              "3|wrong-key|offers --provider $p"; do
    want=${step%%|*}
    rest=${step#*|}
    use_key=${rest%%|*}
    cmd=${rest#*|}
    # shellcheck disable=SC2086
    (cd "$dir/work" && env -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u RUNPOD_API_KEY \
      -u LAMBDA_API_KEY -u VAST_API_KEY BURST_STATE_DIR="$dir/state" \
      BURST_CONFIG_DIR="$dir/config" "$var=$use_key" "$build/burst" $cmd) \
      >>"$dir/burst.log" 2>&1
    rc=$?
    echo "$p: burst ${cmd%% *}$([ "$use_key" = "$key" ] || echo ' (wrong key)'): exit $rc" \
      "(expected $want)"
    [ $rc -eq "$want" ] || status=1
  done
  kill "$proxy_pid"
  wait "$proxy_pid"
  kill "$fc_pid"
  wait "$fc_pid" 2>/dev/null
  python3 - "$dir/summary.json" "$p" <<'EOF' || status=1
import json, sys
s = json.load(open(sys.argv[1]))
print("%s: %d calls (JSON bodies checked against a schema: %d requests, %d responses), "
      "%d request violations (%d not listed as spec defects), "
      "%d response violations (%d not listed)" % (
          sys.argv[2], s["calls"], s["request_bodies_checked"], s["response_bodies_checked"],
          s["request_violations"], s["request_violations_not_listed"],
          s["response_violations"], s["response_violations_not_listed"]))
for k in s["distinct_violations"]:
    print("  %(count)4d x %(direction)s %(method)s %(operation)s: %(what)s at %(where)s" % k
          + (" [spec defect %s]" % k["spec_defect"] if k["spec_defect"] else ""))
sys.exit(1 if s["request_violations_not_listed"] or s["response_violations_not_listed"] else 0)
EOF
done
exit $status
