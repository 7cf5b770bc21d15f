#!/usr/bin/env python3
"""Validate burst's cost model against published measurements.

Reads bench/validation/measurements.csv (one published figure per row, with its source), asks the
built `burst estimate --json` for each row's prediction, and prints the validation table of
docs/cost-model.md with the error of every row and the median absolute error, in-sample and
held-out (held_out = 1, every third row, fixed before any fit) reported separately.

    python3 bench/validate_cost_model.py                  # print the table
    python3 bench/validate_cost_model.py --write-doc      # replace it in docs/cost-model.md
    python3 bench/validate_cost_model.py --fit            # refit the decode efficiencies

--fit grid-searches (eta_bw, t0) per (engine, memory family) on the in-sample throughput rows
only, from the binary's own byte counts and the catalog's bandwidths, and prints the table to
paste into src/cost/cost_model.cpp (decode_fits). Held-out rows never enter the fit.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "bench", "validation", "measurements.csv")
DOC = os.path.join(ROOT, "docs", "cost-model.md")
BEGIN, END = "<!-- validation:begin -->", "<!-- validation:end -->"
THROUGHPUT = ("decode_b1", "decode_batched", "e2e_b1", "e2e_batched")
MEMORY = ("memory_infer", "memory_train")


def burst(binary, args):
    out = subprocess.run([binary, "estimate", "--json"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"burst estimate {' '.join(args)} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def args_of(row, context=None):
    a = ["--model", row["model"]]
    if row["precision"]:
        a += ["--precision", row["precision"]]
    if row["category"] in MEMORY and row["category"] == "memory_train":
        a += ["--mode", "train", "--method", row["method"], "--batch", row["batch"],
              "--context", row["context"]]
        return a
    a += ["--mode", "infer"]
    if row["engine"]:
        a += ["--engine", row["engine"]]
    conc = int(row["concurrency"] or 1)
    a += ["--concurrency", str(conc)]
    ctx = context if context is not None else row["context"]
    if ctx and str(ctx)[0].isdigit():
        a += ["--context", str(ctx)]
    if row["gen_tokens"]:
        a += ["--tokens", str(conc * int(row["gen_tokens"]))]
    if row["gpus"]:
        a += ["--gpus", row["gpus"]]
    return a


def gpu_row(out, name):
    for g in out["gpus"]:
        if g["gpu"] == name:
            return g
    raise SystemExit(f"GPU {name} is not in burst's catalog")


def max_context(binary, row):
    """Largest context (tokens) at which the row's model fits on its GPUs, by bisection."""
    def fits(c):
        return gpu_row(burst(binary, args_of(row, c)), row["gpu"])["fits"]
    lo, hi = 0, 1 << 21
    if not fits(1):
        return 0
    lo = 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def predict(binary, row):
    cat = row["category"]
    if cat == "max_context":
        return max_context(binary, row)
    out = burst(binary, args_of(row))
    if cat == "memory_infer":
        return out["memory_gib"]["weights"]
    if cat == "memory_train":
        return out["memory_gib"]["total"]
    g = gpu_row(out, row["gpu"])
    if not g["fits"]:
        return None
    if cat.startswith("e2e"):
        conc, gen = int(row["concurrency"] or 1), int(row["gen_tokens"])
        return conc * gen / g["seconds"]
    return g["tokens_per_s"]


def bracket(text):
    if text.startswith(">="):
        return int(text[2:]), None
    lo, hi = text.split("-")
    return int(lo), int(hi)


def error(row, pred):
    if pred is None:
        return None
    if row["category"] == "max_context":
        lo, hi = bracket(row["measured"])
        if pred < lo:
            return (pred - lo) / lo
        if hi is not None and pred > hi:
            return (pred - hi) / hi
        return 0.0
    meas = float(row["measured"])
    return (pred - meas) / meas


def fmt_pred(row, pred):
    if pred is None:
        return "no fit"
    if row["category"] == "max_context":
        return str(pred)
    return f"{pred:.2f}" if pred < 100 else f"{pred:.0f}"


def median_abs(errs):
    errs = [abs(e) for e in errs if e is not None]
    return (statistics.median(errs) * 100, len(errs)) if errs else (float("nan"), 0)


def short_source(url):
    m = re.match(r"https?://(?:www\.)?github\.com/([^/]+/[^/]+)(/pull/(\d+))?", url)
    if m:
        return m.group(1) + (f" #{m.group(3)}" if m.group(3) else "")
    return re.sub(r"^https?://(www\.)?", "", url).split("/")[0]


def table(binary, rows):
    lines = ["| # | held out | kind | GPU | model | setup | measured | burst | error | source (what was measured) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    groups = {}
    for r in rows:
        pred = predict(binary, r)
        err = error(r, pred)
        kind = ("throughput" if r["category"] in THROUGHPUT else
                "memory" if r["category"] in MEMORY else "max context")
        groups.setdefault((kind, r["held_out"] == "1"), []).append(err)
        setup = " ".join(x for x in [
            r["precision"] or "", r["engine"] or "", r["method"] or "",
            f"x{r['gpus']}" if r["gpus"] not in ("", "1") else "",
            f"c={r['concurrency']}" if r["concurrency"] not in ("", "1") else "",
            f"ctx {r['context']}" if r["context"] else "",
            f"batch {r['batch']}" if r["batch"] else ""] if x)
        e = "-" if err is None else f"{err * 100:+.1f}%"
        lines.append(
            f"| {r['id']} | {'yes' if r['held_out'] == '1' else ''} | {r['category']} | {r['gpu']} | "
            f"{r['model']} | {setup} | {r['measured']} {r['unit']} | {fmt_pred(r, pred)} | {e} | "
            f"[{short_source(r['source'])}]({r['source']}): {r['what']} |")
    gpus = sorted({r["gpu"] for r in rows if r["gpu"] != "-"})
    lines.append("")
    lines.append(f"{len(rows)} measurements, {len(gpus)} GPU types ({', '.join(gpus)}).")
    lines.append("")
    lines.append("| kind | in-sample median abs error (rows) | held-out median abs error (rows) |")
    lines.append("|---|---|---|")
    for kind in ("throughput", "memory", "max context"):
        a, na = median_abs(groups.get((kind, False), []))
        b, nb = median_abs(groups.get((kind, True), []))
        lines.append(f"| {kind} | {a:.1f}% ({na}) | {b:.1f}% ({nb}) |")
    return "\n".join(lines)


# ---- fit -------------------------------------------------------------------------------------

def catalog():
    """name -> dict of the catalog fields the roofline uses, from config/gpus.yaml."""
    cards, cur = {}, None
    for line in open(os.path.join(ROOT, "config", "gpus.yaml")):
        m = re.match(r"\s*- name:\s*(\S+)", line)
        if m:
            cur = cards.setdefault(m.group(1), {})
            continue
        m = re.match(r"\s+(vendor|memory|interconnect|mem_bw_gbs|fp16_tflops|fp8_tflops):\s*([^#\s]+)",
                     line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2)
    return cards


ETA_COMPUTE = 0.45
TP_PENALTY = {"nvlink": 0.15, "infinity-fabric": 0.15}


def fit(binary, rows):
    cards = catalog()
    data = []
    for r in rows:
        # In-sample single-GPU throughput only: multi-GPU rows depend on the tensor-parallel
        # penalties, which are assumptions, not fits (docs/cost-model.md).
        if r["held_out"] == "1" or r["category"] not in THROUGHPUT or r["gpus"] not in ("", "1"):
            continue
        out = burst(binary, args_of(r))
        g = cards[r["gpu"]]
        m = out["memory_gib"]
        conc, gen = int(r["concurrency"] or 1), int(r["gen_tokens"])
        ctx = int(r["context"])
        n = int(r["gpus"] or 1)
        s = n - TP_PENALTY.get(g["interconnect"], 0.35) * (n - 1)
        tflops = float(g["fp8_tflops"] if r["precision"] == "fp8" and "fp8_tflops" in g
                       else g["fp16_tflops"])
        flops_rate = tflops * 1e12 * ETA_COMPUTE * s
        p = out["params_b"] * 1e9
        data.append({
            "row": r, "family": g["memory"] + " " + g["vendor"], "memory": g["memory"],
            "bytes": (m["weights"] + m["kv_cache"]) * 2**30, "bw": float(g["mem_bw_gbs"]) * 1e9 * s,
            "t_compute": 2 * p * conc / flops_rate, "conc": conc, "gen": gen,
            "prefill": 2 * p * max(0, ctx - gen) * conc / flops_rate if r["category"].startswith("e2e") else 0,
            "meas": float(r["measured"]),
        })

    def residuals(pts, eta, t0):
        res = []
        for d in pts:
            step = max(d["bytes"] / (d["bw"] * eta), d["t_compute"]) + t0
            pred = d["conc"] * d["gen"] / (step * d["gen"] + d["prefill"])
            res.append((pred - d["meas"]) / d["meas"])
        return res

    def best(pts):
        # Least absolute relative residual (L1: the targets are median errors, and one stale
        # measurement cannot drag an L1 fit): a coarse grid (eta 0.01, t0 0.1 ms), then a fine
        # one (eta 0.002, t0 0.02 ms) around the coarse optimum.
        def search(etas, t0s, top=None):
            for eta in etas:
                for t0 in t0s:
                    ss = sum(abs(x) for x in residuals(pts, eta, t0))
                    if top is None or ss < top[0]:
                        top = (ss, eta, t0)
            return top
        _, eta, t0 = search([i * 0.01 for i in range(20, 101)], [j * 0.0001 for j in range(0, 101)])
        return search([eta + k * 0.002 for k in range(-5, 6) if 0 < eta + k * 0.002 <= 1],
                      [t0 + k * 0.00002 for k in range(-5, 6) if t0 + k * 0.00002 >= 0])

    groups = {}
    for d in data:
        eng = d["row"]["engine"]
        groups.setdefault((eng, d["family"]), []).append(d)
        groups.setdefault((eng, d["memory"]), []).append(d)
        groups.setdefault(("", d["family"]), []).append(d)
        groups.setdefault(("", d["memory"]), []).append(d)
    print("  // engine, family, eta_bw, t0_s, in-sample rows (RMS residual, worst)")
    # Groups of two or more rows fit (eta, t0); a group of one fits eta alone, with t0 from the
    # engine-agnostic fit of its memory technology.
    fitted = {}
    for (eng, fam), pts in sorted(groups.items(), key=lambda kv: (len(kv[1]) < 2, kv[0])):
        if len(pts) >= 2:
            _, eta, t0 = best(pts)
        else:
            t0 = fitted[("", pts[0]["memory"])][1]
            _, eta, t0 = min((sum(abs(x) for x in residuals(pts, e / 1000, t0)), e / 1000, t0)
                             for e in range(200, 1001))
        fitted[(eng, fam)] = (eta, t0)
        res = residuals(pts, eta, t0)
        rms = (sum(x * x for x in res) / len(res)) ** 0.5 * 100
        worst = max(res, key=abs) * 100
        print(f'      {{"{eng}", "{fam}", {eta:.3f}, {t0:.5f}, {len(pts)}}},  // RMS {rms:.1f}%, worst {worst:+.1f}%')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--burst", default=os.path.join(ROOT, "build", "burst"))
    ap.add_argument("--write-doc", action="store_true")
    ap.add_argument("--fit", action="store_true")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(CSV)))
    if a.fit:
        fit(a.burst, rows)
        return
    t = table(a.burst, rows)
    if not a.write_doc:
        print(t)
        return
    doc = open(DOC).read()
    if BEGIN not in doc:
        sys.exit(f"{DOC} has no {BEGIN} marker")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(DOC, "w").write(head + BEGIN + "\n" + t + "\n" + END + tail)


if __name__ == "__main__":
    main()
