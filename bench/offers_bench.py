#!/usr/bin/env python3
"""Whole-process wall time of `burst offers --json` merging three emulated providers.

Starts burst-fakecloud (the program built next to burst) on 127.0.0.1, gives each provider about
2,000 offers with the emulator's `extra_offers` knob (POST /_fake/faults), points burst at it
through config.yaml in a temp BURST_CONFIG_DIR with all three keys in the environment, runs
`burst offers --json` R times after warm-up runs, and prints the median and p90 wall time, the
offers each provider returned, and which providers were live. Standard library only.
Target (issue 4): under 1 s.

    python3 bench/offers_bench.py --build build [--runs 15] [--json]
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

# extra_offers per provider, chosen so each returns about 2,000 offers: RunPod lists every GPU
# type in 2 data centres x counts 1, 2, 4, 8 (8 offers per type); Vast one offer per synthetic
# machine; Lambda two per synthetic instance type (its regions).
EXTRA = {"runpod": 250, "vast": 2000, "lambda": 1000}
KEYS = {"runpod": "rpa_BENCHKEY_offers", "vast": "vast_BENCHKEY_offers",
        "lambda": "secret_BENCHKEY_offers"}


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status


def proc_cpu_s(pid):
    """utime + stime of a process, in seconds (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="build dir holding burst and burst-fakecloud")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    a = ap.parse_args()
    burst = os.path.abspath(os.path.join(a.build, "burst"))
    fake = os.path.abspath(os.path.join(a.build, "burst-fakecloud"))
    env = dict(os.environ)
    for p, k in KEYS.items():
        env[p.upper() + "_API_KEY"] = k
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1"
    with tempfile.TemporaryDirectory(prefix="offers-bench-") as tmp:
        emu = subprocess.Popen([fake, "--port", "0", "--state-dir", os.path.join(tmp, "fc")],
                               env=env, stdout=subprocess.PIPE, text=True)
        try:
            line = emu.stdout.readline()  # "burst-fakecloud listening on http://127.0.0.1:N (...)"
            base = line.split("listening on ")[1].split()[0]
            for p, n in EXTRA.items():
                post(f"{base}/_fake/faults?provider={p}", {"extra_offers": n})
            cfg = os.path.join(tmp, "config")
            os.makedirs(cfg)
            with open(os.path.join(cfg, "config.yaml"), "w") as f:
                f.write("providers:\n")
                for p in EXTRA:
                    f.write(f"  {p}:\n    base_url: {base}/{p}\n")
            env["BURST_CONFIG_DIR"] = cfg
            env["BURST_STATE_DIR"] = os.path.join(tmp, "state")
            cmd = [burst, "offers", "--json"]
            times, cpus, emu_cpus, out = [], [], [], None
            load = os.getloadavg()[0]
            for i in range(a.warmup + a.runs):
                ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                e0 = proc_cpu_s(emu.pid)
                t0 = time.perf_counter()
                r = subprocess.run(cmd, env=env, capture_output=True, text=True)
                dt = time.perf_counter() - t0
                e1 = proc_cpu_s(emu.pid)
                ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
                if r.returncode != 0:
                    sys.exit(f"burst offers failed ({r.returncode}): {r.stderr}")
                if i >= a.warmup:
                    times.append(dt)
                    cpus.append(cpu)
                    emu_cpus.append(e1 - e0)
                out = json.loads(r.stdout)
        finally:
            load_after = os.getloadavg()[0]
            emu.terminate()
            emu.wait(timeout=10)
    per = {}
    for o in out["offers"]:
        if o["price_source"] == "live offer":
            per[o["provider"]] = per.get(o["provider"], 0) + 1
    times.sort()
    res = {
        "runs": a.runs,
        "median_s": statistics.median(times),
        "p90_s": times[min(len(times) - 1, int(round(0.9 * (len(times) - 1))))],
        "live": out["live"],
        "offline_table": out["offline_table"],
        "live_offers_per_provider": per,
        "offers_total": len(out["offers"]),
        "burst_cpu_median_s": statistics.median(cpus),
        "emulator_cpu_median_s": statistics.median(emu_cpus),
        "load_average_1min_before": load,
        "load_average_1min_after": load_after,
        "command": "burst offers --json",
    }
    if a.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"burst offers --json: median {res['median_s']*1000:.0f} ms, "
              f"p90 {res['p90_s']*1000:.0f} ms over {a.runs} runs; burst's own CPU (user+sys) "
              f"median {res['burst_cpu_median_s']*1000:.0f} ms; emulator CPU median "
              f"{res['emulator_cpu_median_s']*1000:.0f} ms; load average {load:.1f} before, "
              f"{load_after:.1f} after")
        print(f"  live: {', '.join(res['live']) or 'none'}; offline table: "
              f"{', '.join(res['offline_table']) or 'none'}")
        print(f"  live offers: {per}; total listed {res['offers_total']}")


if __name__ == "__main__":
    main()
