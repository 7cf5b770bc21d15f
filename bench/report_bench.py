#!/usr/bin/env python3
"""Whole-process wall time of `burst report --month 2026-11` over N recorded jobs.

Creates a state database with `burst jobs` (so the schema is burst's own, migrated), records N
jobs (default 10,000) in November 2026 straight into it (4 pipelines, 3 providers, a GPU pod per
job, a CPU hand-off pod for half, 12 phase rows, 2 transfers; 8% failed, 3% cancelled, 2% never
created a pod), then runs `burst report --month 2026-11 --format FORMAT -o FILE` R times after
warm-up runs and prints the median and p90. Standard library only. Target (issue 7): under 1 s.

    python3 bench/report_bench.py --burst build/burst [--jobs 10000] [--runs 10] [--format html]
"""

import argparse
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

NOV1_MS = 1793491200000  # 2026-11-01T00:00:00Z
PIPELINES = [("tts-render", "runpod", "RTX_4090", 0.69, 1), ("finetune-7b", "lambda",
             "A100_80GB", 1.79, 60), ("embed-docs", "vast", "RTX_3090", 0.22, 1),
             ("nightly-eval", "runpod", "H100_SXM", 2.99, 1)]
PHASES = ["plan", "provision", "wait-for-ssh", "sync", "setup", "run", "pull", "delete-gpu-pod",
          "cpu-provision", "upload", "delete-cpu-pod", "report"]


def record(db_path, n, seed):
    rng = random.Random(seed)
    db = sqlite3.connect(db_path)
    month_ms = 30 * 86400000
    with db:
        for i in range(n):
            pipeline, provider, gpu, price, inc = rng.choice(PIPELINES)
            job_id = "bench-%06d" % i
            start = NOV1_MS + int(i * month_ms / n)
            run_s = rng.uniform(60, 3600)
            roll = rng.random()
            state, error = "succeeded", ""
            if roll < 0.08:
                state, error = "failed", "run: exited with status 1"
            elif roll < 0.11:
                state, error = "interrupted", "run: interrupted"
            no_pod = 0.11 <= roll < 0.13
            if no_pod:
                state, error = "failed", "provision: no capacity"
            facts = {"gpu_type": gpu, "gpu_count": 1, "gpu_usd_per_hour": price,
                     "price_source": "live offer", "billing_increment_s": inc,
                     "billing_minimum_s": 0, "billing_unit": "minute" if inc == 60 else "second",
                     "workload_kind": "custom", "units": 300, "unit_name": "items",
                     "bound": "compute", "calibration_runs": 0, "calibration_factor": 1,
                     "budget_usd": 20, "deadline_s": 7200}
            est = {"usd": price * (run_s + 200) / 3600, "billed_s": run_s + 200,
                   "total_s": run_s + 200, "run_s": run_s * rng.uniform(0.8, 1.2),
                   "utilization": 0.8, "run_known": True, "basis": "bench"}
            seconds = [0.5, 60, 30, 10, 20, run_s, 15, 5, 20, 30, 5, 0.1]
            t = start
            times = []
            for s in seconds:
                times.append((t, t + int(s * 1000)))
                t += int(s * 1000)
            db.execute("INSERT INTO jobs (id, pipeline, spec_path, state, phase, provider, error,"
                       " estimate_json, report_path, created_ms, finished_ms, owner_pid,"
                       " facts_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       (job_id, pipeline, "/bench/%s.yaml" % pipeline, state, "report", provider,
                        error, json.dumps(est), "", start, t, 0, json.dumps(facts)))
            for name, (a, b) in zip(PHASES, times):
                db.execute("INSERT INTO phases (job_id, phase, started_ms, ended_ms, outcome,"
                           " detail) VALUES (?,?,?,?,?,?)", (job_id, name, a, b, "ok", ""))
            gpu_state, gpu_end = ("create-failed", times[1][1]) if no_pod else \
                ("deleted", times[7][1])
            db.execute("INSERT INTO pods (job_id, provider, role, name, pod_id, gpu_type,"
                       " gpu_count, usd_per_hour, price_source, state, host_key, created_ms,"
                       " deleted_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       (job_id, provider, "gpu", "burst-%s-gpu" % job_id, "p" + job_id, gpu, 1,
                        price, "live offer", gpu_state, "", times[1][0], gpu_end))
            if not no_pod and i % 2 == 0:
                db.execute("INSERT INTO pods (job_id, provider, role, name, pod_id, gpu_type,"
                           " gpu_count, usd_per_hour, price_source, state, host_key, created_ms,"
                           " deleted_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           (job_id, provider, "cpu", "burst-%s-cpu" % job_id, "c" + job_id,
                            "cpu", 0, 0.06, "live offer", "deleted", "", times[8][0],
                            times[10][1]))
            for d, b in (("sync", 184320), ("pull", 52428800)):
                db.execute("INSERT INTO transfers (job_id, direction, files, bytes, millis)"
                           " VALUES (?,?,?,?,?)", (job_id, d, 3, b, 1000))
    db.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--burst", required=True)
    ap.add_argument("--jobs", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--format", default="html", choices=["md", "json", "html"])
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="burst-report-bench-") as tmp:
        env = dict(os.environ, BURST_STATE_DIR=os.path.join(tmp, "state"),
                   BURST_CONFIG_DIR=os.path.join(tmp, "config"))
        subprocess.run([args.burst, "jobs"], env=env, check=True, stdout=subprocess.DEVNULL)
        record(os.path.join(tmp, "state", "burst.db"), args.jobs, args.seed)
        out = os.path.join(tmp, "month." + args.format)
        cmd = [args.burst, "report", "--month", "2026-11", "--format", args.format, "-o", out]
        times = []
        for i in range(args.warmup + args.runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            if i >= args.warmup:
                times.append(time.perf_counter() - t0)
        times.sort()
        p90 = times[min(len(times) - 1, int(round(0.9 * (len(times) - 1))))]
        print("jobs=%d format=%s runs=%d median=%.1f ms p90=%.1f ms output=%d bytes load=%s" % (
            args.jobs, args.format, args.runs, statistics.median(times) * 1000, p90 * 1000,
            os.path.getsize(out), " ".join("%.2f" % x for x in os.getloadavg())))


if __name__ == "__main__":
    sys.exit(main())
