#!/usr/bin/env python3
"""burstd's idle cost and queue throughput (issue 6). Standard library only.

Starts burstd in a temp home (state, config, socket all inside it), waits until it answers, then:
  1. idle: CPU time used over --idle-seconds (utime+stime from /proc/<pid>/stat, as % of one
     core) and RSS (VmRSS, VmHWM from /proc/<pid>/status). Targets: under 1% CPU, RSS under 20 MiB.
     With --postgres the store is a PostgreSQL server this script starts in a temp dir (Debian's
     /usr/lib/postgresql/*/bin initdb and pg_ctl, as user `postgres` when run as root), set as
     `store:` in burst's config.yaml, as a team would (docs/daemon.md).
  2. with --jobs N: submits N tiny jobs (`run: true`) on the local cloud with
     max_concurrent_jobs = --concurrency, waits for all to end, and checks that every one
     succeeded and no pod process is left.

    python3 bench/daemon_bench.py --burst build/burst --burstd build/burstd
    python3 bench/daemon_bench.py --burst build/burst --burstd build/burstd --idle-seconds 0 --jobs 50
    python3 bench/daemon_bench.py --burst build/burst --burstd build/burstd --postgres
"""
import glob
import argparse
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def start_postgres(home):
    """A throwaway server on a Unix socket in `home`; returns (store URL, stop function)."""
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                  key=lambda p: int(p.split("/")[4]))
    if not bins:
        raise SystemExit("--postgres: no /usr/lib/postgresql/*/bin/initdb (scripts/setup installs it)")
    bindir = os.path.dirname(bins[-1])
    pg = f"{home}/pg"
    os.makedirs(pg)
    prefix = []
    if os.geteuid() == 0:  # the server refuses to run as root
        shutil.chown(home, "postgres")
        shutil.chown(pg, "postgres")
        os.chmod(home, 0o755)
        prefix = ["runuser", "-u", "postgres", "--"]
    subprocess.run(prefix + [f"{bindir}/initdb", "-D", f"{pg}/data", "-U", "burst", "-A", "trust",
                             "-E", "UTF8", "--no-sync"], check=True, capture_output=True)
    subprocess.run(prefix + [f"{bindir}/pg_ctl", "-D", f"{pg}/data", "-l", f"{pg}/server.log",
                             "-w", "-o", f"-k {pg} -c listen_addresses=''", "start"],
                   check=True, capture_output=True)

    def stop():
        subprocess.run(prefix + [f"{bindir}/pg_ctl", "-D", f"{pg}/data", "-m", "immediate",
                                 "stop"], capture_output=True)
    return "postgresql://burst@" + pg.replace("/", "%2F") + "/postgres", stop


def burst(args, env, check=True):
    r = subprocess.run([ARGS.burst] + args, env=env, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise SystemExit(f"burst {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def main():
    home = tempfile.mkdtemp(prefix="burstd-bench-")
    env = dict(os.environ, BURST_STATE_DIR=f"{home}/state", BURST_CONFIG_DIR=f"{home}/config")
    for k in ("RUNPOD_API_KEY", "LAMBDA_API_KEY", "VAST_API_KEY", "XDG_STATE_HOME"):
        env.pop(k, None)
    os.makedirs(f"{home}/config")
    with open(f"{home}/config/burstd.yaml", "w") as f:
        f.write(f"max_concurrent_jobs: {ARGS.concurrency}\n")
    stop_postgres = None
    if ARGS.postgres:
        url, stop_postgres = start_postgres(home)
        with open(f"{home}/config/config.yaml", "w") as f:
            f.write(f"store: {url}\n")
        print(f"store: PostgreSQL in {home}/pg")
    d = subprocess.Popen([ARGS.burstd], env=env, stdout=subprocess.DEVNULL,
                         stderr=open(f"{home}/burstd.err", "w"))
    try:
        for _ in range(200):
            if burst(["status"], env, check=False).returncode == 0:
                break
            time.sleep(0.05)
        else:
            raise SystemExit("burstd did not answer:\n" + open(f"{home}/burstd.err").read())
        if ARGS.idle_seconds > 0:
            time.sleep(2)  # let start-up (recovery, reap) settle
            c0, t0 = cpu_seconds(d.pid), time.monotonic()
            time.sleep(ARGS.idle_seconds)
            c1, t1 = cpu_seconds(d.pid), time.monotonic()
            print(f"idle: {100 * (c1 - c0) / (t1 - t0):.3f}% CPU over {t1 - t0:.0f} s "
                  f"({c1 - c0:.2f} s of CPU); RSS {status_kib(d.pid, 'VmRSS') / 1024:.1f} MiB "
                  f"(peak {status_kib(d.pid, 'VmHWM') / 1024:.1f} MiB)")
            print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
        if ARGS.jobs > 0:
            spec = f"{home}/tiny.yaml"
            with open(spec, "w") as f:
                f.write("name: tiny\nresources: {providers: [local]}\nrun: true\n"
                        "schedule: {cron: '@yearly', overlap: true}\n")
            start = time.monotonic()
            ids = []
            for _ in range(ARGS.jobs):
                out = burst(["submit", spec, "--json"], env).stdout
                ids.append(json.loads(out)["id"])
            states = {}
            while len(states) < len(ids):
                time.sleep(0.5)
                for j in json.loads(burst(["status", "--json"], env).stdout):
                    if j["id"] in ids and j["state"] not in ("queued", "running"):
                        states[j["id"]] = j["state"]
                if time.monotonic() - start > 1800:
                    raise SystemExit("jobs did not finish in 30 minutes")
            wall = time.monotonic() - start
            ok = sum(1 for s in states.values() if s == "succeeded")
            pods = json.loads(burst(["reap", "--json", "--dry-run"], env).stdout)
            left = subprocess.run(["pgrep", "-f", f"{home}/state/local/pods"],
                                  capture_output=True, text=True).stdout.split()
            print(f"{ARGS.jobs} jobs, concurrency {ARGS.concurrency}: {ok} succeeded in "
                  f"{wall:.1f} s; pods not deleted in the store: {len(pods)}; "
                  f"pod processes left: {len(left)}; RSS after "
                  f"{status_kib(d.pid, 'VmRSS') / 1024:.1f} MiB "
                  f"(peak {status_kib(d.pid, 'VmHWM') / 1024:.1f} MiB)")
    finally:
        d.send_signal(signal.SIGTERM)
        try:
            d.wait(timeout=120)
        except subprocess.TimeoutExpired:
            d.kill()
        if stop_postgres:
            stop_postgres()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--burst", default="build/burst")
    p.add_argument("--burstd", default="build/burstd")
    p.add_argument("--idle-seconds", type=float, default=60)
    p.add_argument("--jobs", type=int, default=0)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--postgres", action="store_true",
                   help="the store on a PostgreSQL server started for the run")
    ARGS = p.parse_args()
    main()
