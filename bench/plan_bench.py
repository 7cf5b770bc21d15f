#!/usr/bin/env python3
"""Whole-process wall time of `burst plan --offers FILE` over generated offers.

Generates N offers (default 10,000) across providers and catalog GPU types, writes them to a
temp JSON file, runs `burst plan SPEC --offers FILE` R times (after warm-up runs) and prints the
median and p90 wall time. Standard library only. Target (issue 3): under 20 ms for 10,000 offers.
The generated spec states its image's size (image_size_gb), so no plan asks a registry: what is
timed is the planner, not the network (a lookup has its own 3 s deadline and a day's cache).

    python3 bench/plan_bench.py --burst build/burst [--offers 10000] [--runs 50] [--json]
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Catalog names (config/gpus.yaml) with a rough $/h per GPU to scatter prices around.
GPUS = {
    "RTX_3090": 0.43, "RTX_4090": 0.69, "RTX_5090": 0.89, "RTX_A4000": 0.32, "RTX_A5000": 0.29,
    "RTX_A6000": 0.49, "RTX_6000_ADA": 0.77, "A10": 0.75, "A10G": 1.0, "A40": 0.44, "L4": 0.44,
    "L40S": 0.86, "A100_40GB": 1.29, "A100_80GB": 1.89, "H100_PCIE": 2.39, "H100_SXM": 2.99,
    "H200": 3.99, "MI300X": 2.49, "T4": 0.3, "V100": 0.5,
}
PROVIDERS = ["runpod", "vast", "lambda", "acme", "gpuhub"]
COUNTS = [1, 1, 1, 2, 4, 8]


def make_offers(n, seed):
    rng = random.Random(seed)
    names = sorted(GPUS)
    out = []
    for _ in range(n):
        gpu = rng.choice(names)
        count = rng.choice(COUNTS)
        price = round(GPUS[gpu] * count * rng.uniform(0.7, 1.6), 3)
        o = {"provider": rng.choice(PROVIDERS), "gpu_type": gpu, "gpu_count": count,
             "usd_per_hour": price, "region": rng.choice(["us", "eu", "asia"])}
        if rng.random() < 0.4:
            o["spot_usd_per_hour"] = round(price * 0.5, 3)
        if rng.random() < 0.05:
            o["available"] = False
        out.append(o)
    return out


SPEC = """version: 1
name: bench
workload: {kind: diffusion, params_b: 0.5, precision: bf16, items: 300, steps: 8, batch: 8,
           tokens: 16}
resources: {max_usd_per_hour: 20}
budget: {deadline: 30m}
image_size_gb: 0.03
run: python3 render.py
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--burst", default=os.path.join(ROOT, "build", "burst"))
    ap.add_argument("--spec", help="spec file (default: a generated diffusion spec)")
    ap.add_argument("--offers", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="also time `burst plan --json`")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="burst-plan-bench-") as tmp:
        offers_path = os.path.join(tmp, "offers.json")
        with open(offers_path, "w") as f:
            json.dump(make_offers(args.offers, args.seed), f)
        spec = args.spec
        if not spec:
            spec = os.path.join(tmp, "bench.yaml")
            with open(spec, "w") as f:
                f.write(SPEC)
        env = dict(os.environ, BURST_STATE_DIR=os.path.join(tmp, "state"),
                   BURST_CONFIG_DIR=os.path.join(tmp, "config"))
        cmd = [args.burst, "plan", spec, "--offers", offers_path] + (["--json"] if args.json else [])
        for _ in range(args.warmup):
            r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode != 0:
                sys.exit("burst plan failed (%d): %s" % (r.returncode, r.stderr.decode()))
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        p90 = times[min(len(times) - 1, int(round(0.9 * len(times))) - 1)]
        print("burst plan --offers: %d offers (%d bytes), %d runs: median %.1f ms, p90 %.1f ms, "
              "min %.1f ms, max %.1f ms" % (args.offers, os.path.getsize(offers_path), args.runs,
                                            statistics.median(times), p90, times[0], times[-1]))


if __name__ == "__main__":
    main()
