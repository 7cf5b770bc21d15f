#!/usr/bin/env python3
"""Score burst's cost model on published figures: fit set, leave one source out, held out.

The protocol (bench/README.md, "Cost-model validation"): every row names its source, and
bench/validation/sources.csv puts every source in one set. measurements.csv holds the rows of
the fit-set sources, the only rows any prior or efficiency is fitted on; held_out.csv holds the
rows of the held-out sources, which nothing is tuned on. The script asks the built
`burst estimate --json` for each row's prediction and prints, per category, the median absolute
error on the fit set, leave-one-source-out (each fit-set source's rows predicted with the fitted
parameters refitted without that source) and on the held-out set.

    python3 bench/validate_cost_model.py                  # print the table
    python3 bench/validate_cost_model.py --write-doc      # into docs/cost-model.md and bench/README.md
    python3 bench/validate_cost_model.py --fit            # refit the decode efficiencies

--fit grid-searches (eta_bw, t0) per (engine, memory family) on the fit set's single-GPU
throughput rows, from the binary's own byte counts and the catalog's bandwidths, and prints the
table to paste into src/cost/cost_model.cpp (decode_fits).
"""
import argparse
import csv
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys

from validate_fits import (ETA_COMPUTE, VIDEO_ETA, dfit_groups, dlookup, dmirror, fit_groups,
                           fit_moe_share,
                           lookup, mirror, prefill_fit, prefill_lookup, video_eta)
from validate_rows import (CATEGORIES, MEMORY, category, error, fmt_pred, median_abs, pct,
                           setup_of, short_source)
from validate_weight_load import LOAD, load_fit, load_points, lmirror
import validate_offload as voff
# A diffusion pipeline's peak memory (nothing fitted: bench/README.md, "Diffusion peak memory").
DM_CATEGORY = "memory_diffusion"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(ROOT, "bench", "validation", "measurements.csv")
HELD_OUT = os.path.join(ROOT, "bench", "validation", "held_out.csv")
SOURCES = os.path.join(ROOT, "bench", "validation", "sources.csv")
DOC = os.path.join(ROOT, "docs", "cost-model.md")
README = os.path.join(ROOT, "bench", "README.md")
BEGIN, END = "<!-- validation:begin -->", "<!-- validation:end -->"
THROUGHPUT = ("decode_b1", "decode_b1_long", "decode_b1_multi", "decode_batched", "e2e_b1",
              "e2e_batched")
def burst(binary, args):
    out = subprocess.run([binary, "estimate", "--json"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"burst estimate {' '.join(args)} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def args_of(row, context=None):
    # A model outside burst's shape table is named by its parameter count ("6.7b").
    m = row["model"]
    a = ["--params", m.upper()] if re.fullmatch(r"\d+(\.\d+)?b", m) else ["--model", m]
    if row.get("shape"):
        # A row entered by its parameter count whose model is a built-in shape (a mixture of
        # experts' layout): the shape, with the source's size kept.
        a += ["--model", row["shape"]]
    if row["precision"]:
        a += ["--precision", row["precision"]]
    if row["category"].startswith("diffusion") or row["category"] == DM_CATEGORY:
        # One round of `batch` items; the row's figure is denoising iterations per second.
        batch = row["batch"] or "1"
        a += ["--mode", "diffusion", "--batch", batch, "--items", batch,
              "--steps", row.get("steps") or "1"]
        for col, flag in (("resolution", "--resolution"), ("frames", "--frames"),
                          ("guidance", "--guidance"), ("audio_s", "--audio-seconds"),
                          ("guidance_batched", "--guidance-batched"),
                          ("attention_kernel", "--attention-kernel"), ("offload", "--offload")):
            if row.get(col):
                a += [flag, row[col]]
        if row["gpus"] not in ("", "1"):
            # Every multi-card diffusion row's source split one item over all its cards
            # (bench/README.md, "One item over several cards (sequence parallel): the rule";
            # classifier-free-guidance parallel counts in the degree, and where the source names
            # it, cfg_parallel is 1: "Guidance parallel as its own degree: the rule").
            a += ["--gpus", row["gpus"], "--sequence-parallel", row["gpus"]]
            if row.get("cfg_parallel") == "1":
                a += ["--cfg-parallel"]
        return a
    if row["category"] in MEMORY and row["category"] == "memory_train":
        a += ["--mode", "train", "--method", row["method"], "--batch", row["batch"],
              "--context", row["context"]]
        for col, flag in (("checkpointing", "--gradient-checkpointing"),
                          ("lora_rank", "--lora-rank"), ("lora_targets", "--lora-targets")):
            if row.get(col):
                a += [flag, row[col]]
        return a
    a += ["--mode", "infer"]
    if row["category"] in LOAD and row.get("method"):
        a += ["--weights-from", row["method"]]  # where the weights are read from
    if row["category"] in LOAD and row.get("disk_read_mbps"):
        a += ["--disk-read-mbps", row["disk_read_mbps"]]  # the source's own disk rate (fio)
    if row["category"] in LOAD and row.get("loader"):
        # A streaming loader (Run:ai streamer, sllm, ...), or http: huggingface_hub's one stream
        # a file, before Xet.
        a += ["--loader", row["loader"]]
    if row["engine"]:
        a += ["--engine", row["engine"]]
    if row.get("kv_precision"):
        a += ["--kv-precision", row["kv_precision"]]  # the KV cache's, where the source set one
    if row.get("gpu_memory_utilization"):
        # The engine's memory share where the source set one (vLLM's gpu_memory_utilization).
        a += ["--gpu-memory-utilization", row["gpu_memory_utilization"]]
    conc = int(row["concurrency"] or 1)
    a += ["--concurrency", str(conc)]
    ctx = context if context is not None else row["context"]
    if ctx and str(ctx)[0].isdigit():
        a += ["--context", str(ctx)]
    if row["gen_tokens"]:
        a += ["--tokens", str(conc * int(row["gen_tokens"]))]
    if row["gpus"]:
        a += ["--gpus", row["gpus"]]
    if row["gpus"] not in ("", "1") and row["engine"] in TENSOR_PARALLEL_ENGINES:
        # Every such row's source ran one copy over all its cards (bench/README.md, "Tensor
        # parallel as an input: the rule").
        a += ["--tensor-parallel", row["gpus"]]
    return a


TENSOR_PARALLEL_ENGINES = ("vllm", "sglang", "tensorrt-llm")


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
    if cat == "kv_tokens":
        # The KV cache's capacity in tokens, as a serving engine logs it ("# GPU blocks" x block
        # size, or "GPU KV cache size"): burst's sequences of one token that fit.
        return gpu_row(burst(binary, args_of(row, 1)), row["gpu"])["max_concurrency"]
    out = burst(binary, args_of(row))
    if cat == "memory_infer":
        return out["memory_gib"]["weights"]
    if cat in ("memory_train", DM_CATEGORY):
        return out["memory_gib"]["total"]
    if cat in LOAD:
        # A download alone (vLLM's "Time spent downloading weights") is the read, no loader.
        part = "read_s" if row["metric"] == "download_seconds" else "seconds"
        return out["weight_load_s"][part]
    g = gpu_row(out, row["gpu"])
    if not g["fits"]:
        return None
    if cat == "prefill":
        # Prompt tokens per second over the batch: prefill_s prices every sequence's prompt.
        conc = int(row["concurrency"] or 1)
        return conc * (int(row["context"]) - int(row["gen_tokens"])) / g["prefill_s"]
    if cat == "diffusion_video" and row["metric"] == "seconds_per_step":
        return g["step_s"]  # one denoiser pass (a transformer forward)
    if cat in ("diffusion_image", "diffusion_video") and row["metric"] == "seconds_per_batch":
        # End to end: every denoising step of one batch and its VAE decode.
        return g["seconds"]
    if cat in ("diffusion_image", "diffusion_video"):
        return 1 / g["step_s"]  # iterations (denoising steps of the batch) per second
    if cat == "diffusion_audio":
        # Real-time factor: seconds of compute per second of audio.
        return g["seconds"] / (float(row["audio_s"]) * int(row["batch"] or 1))
    if cat.startswith("e2e"):
        conc, gen = int(row["concurrency"] or 1), int(row["gen_tokens"])
        # Requests that stop early (EOS): the run lasts as long as the longest (gen_tokens each),
        # and the measurement divides the tokens actually generated by that time.
        if row.get("output_tokens"):
            return int(row["output_tokens"]) / g["seconds"]
        return conc * gen / g["seconds"]
    return g["tokens_per_s"]


def table(binary, fit_rows, held_rows, loso):
    """The per-row table and the three errors per category: the fit set, leave-one-source-out
    (loso: row id -> prediction with the fitted parameters refitted without the row's source)
    and the held-out set."""
    lines = ["| # | set | kind | GPU | model | setup | measured | burst | error | source (what was measured) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    fit_e, loso_e, held_e = {}, {}, {}
    for rows, held in ((fit_rows, False), (held_rows, True)):
        for r in rows:
            pred = predict(binary, r)
            err = error(r, pred)
            cat = category(r)
            (held_e if held else fit_e).setdefault(cat, []).append(err)
            if not held:
                lp = loso.get(r["id"], pred)
                loso_e.setdefault(cat, []).append(error(r, lp))
            e = "-" if err is None else f"{err * 100:+.1f}%"
            lines.append(
                f"| {r['id']} | {'held out' if held else 'fit'} | {r['category']} | {r['gpu']} | "
                f"{r['model']} | {setup_of(r)} | {r['measured']} {r['unit']} | {fmt_pred(r, pred)} | "
                f"{e} | [{short_source(r['source'])}]({r['source']}): {r['what']} |")
    rows = fit_rows + held_rows
    gpus = sorted({r["gpu"] for r in rows if r["gpu"] != "-"})
    lines.append("")
    lines.append(f"{len(fit_rows)} fit rows from {len({r['source'] for r in fit_rows})} sources, "
                 f"{len(held_rows)} held-out rows from {len({r['source'] for r in held_rows})} "
                 f"source(s); {len(gpus)} GPU types ({', '.join(gpus)}).")
    lines.append("")
    lines.append("| category | fit set: median abs error (rows) | leave one source out (rows) | "
                 "held out (rows) |")
    lines.append("|---|---|---|---|")
    for cat in CATEGORIES + ("all",):
        pick = (lambda d: [e for v in d.values() for e in v]) if cat == "all" else (
            lambda d: d.get(cat, []))
        a, na = median_abs(pick(fit_e))
        b, nb = median_abs(pick(loso_e))
        c, nc = median_abs(pick(held_e))
        name = f"**{cat}**" if cat == "all" else cat
        lines.append(f"| {name} | {pct(a, na)} | {pct(b, nb)} | {pct(c, nc)} |")
    return "\n".join(lines)


# ---- fit and leave-one-source-out ------------------------------------------------------------

def catalog():
    """name -> dict of the catalog fields the roofline uses, from config/gpus.yaml."""
    cards, cur = {}, None
    for line in open(os.path.join(ROOT, "config", "gpus.yaml")):
        m = re.match(r"\s*- name:\s*(\S+)", line)
        if m:
            cur = cards.setdefault(m.group(1), {})
            continue
        m = re.match(r"\s+(vendor|segment|memory|interconnect|mem_bw_gbs|fp16_tflops|fp8_tflops):"
                     r"\s*([^#\s]+)", line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2)
    return cards


# src/cost/sustained_rate.cpp: the share of its catalog tensor rate a power-capped card sustains
# under continuous matrix work (T4: about 24 of 65 TFLOPS at its 70 W limit).
SUSTAINED = {"T4": 24.0 / 65.0}
# src/cost/fp32_rate.cpp: the FP32 (non-tensor) rate fp32 computes at, where one is listed.
FP32_TFLOPS = {"RTX_3080": 29.8, "RTX_3090": 35.6, "RTX_A6000": 38.7, "RTX_4090": 82.6,
               "RTX_6000_ADA": 91.1, "T4": 8.1, "A10": 31.2, "A40": 37.4, "L4": 30.3,
               "L40S": 91.6, "A100_40GB": 19.5, "A100_80GB": 19.5, "A100_80GB_PCIE": 19.5,
               "H100_SXM": 67.0, "H100_PCIE": 51.0}


def tensor_tflops(card, precision, fp16_accumulate, name=None):
    """src/cost/engine_rates.cpp tensor_tflops: fp8 where the card has it; with FP16
    accumulation (llama.cpp's prefill; never bf16, never PyTorch), twice the catalog's rate on
    GeForce cards, which list the FP32-accumulate one; times the share a power-capped card
    sustains."""
    sustained = SUSTAINED.get(name, 1.0)
    if precision == "fp8" and "fp8_tflops" in card:
        return float(card["fp8_tflops"]) * sustained
    if precision == "fp32" and name in FP32_TFLOPS:
        return FP32_TFLOPS[name]
    if (fp16_accumulate and precision not in ("bf16", "fp32", "fp8") and
            card["vendor"] == "nvidia" and card.get("segment") == "consumer"):
        return 2 * float(card["fp16_tflops"]) * sustained
    return float(card["fp16_tflops"]) * sustained


def decode_points(binary, rows):
    """The fit set's throughput rows as the roofline sees them (the binary's byte counts, the
    catalog's rates): what the decode fit and its Python mirror work on. Single-GPU rows fit every
    group; a tensor-parallel row ("multi") keeps the binary's collective time per step (comm_s,
    link physics, not fitted) and prefill, and fits only an (engine, family) that has no
    single-GPU row (fit_groups)."""
    cards = catalog()
    data = []
    for r in rows:
        # llama.cpp's multi-GPU rows split by layers (no fitted term of their own) and its batched
        # decode (llama.cpp #3545's batched-bench: 8 sequences at 2.9x one, far below both roofs)
        # is a regime the roofline does not model: scored, not fitted.
        multi = r["gpus"] not in ("", "1")
        if r["category"] not in THROUGHPUT:
            continue
        if r["engine"] == "llama.cpp" and (multi or int(r["concurrency"] or 1) > 1):
            continue
        out = burst(binary, args_of(r))
        g = cards[r["gpu"]]
        m = out["memory_gib"]
        conc, gen = int(r["concurrency"] or 1), int(r["gen_tokens"])
        ctx = int(r["context"])
        # The compute roof at the rate burst's decode uses (tensor_tflops, no FP16 accumulation).
        tflops = tensor_tflops(g, r["precision"] or "fp16", False, r["gpu"])
        flops_rate = tflops * 1e12 * ETA_COMPUTE
        p = out["params_b"] * 1e9
        e2e = r["category"].startswith("e2e")
        b = gpu_row(out, r["gpu"])
        # The engine runs what it admits and queues the rest in rounds (engine_admits): the
        # binary's step and prefill are those of the admitted batch, memory_gib's KV the asked.
        at_once = b.get("runs_at_once") or conc
        rounds = math.ceil(conc / at_once)
        # The KV cache read at the mean context: the prompt plus half the output.
        kv = m["kv_cache"] * at_once / conc * (ctx - gen / 2) / ctx * 2**30
        d = {
            "row": r, "source": r["source"], "engine": r["engine"], "memory": g["memory"],
            "family": g["memory"] + " " + g["vendor"],
            "bytes": m["weights"] * 2**30 + kv, "kv": kv,
            "bw": float(g["mem_bw_gbs"]) * 1e9,
            "t_compute": 2 * p * at_once / flops_rate, "conc": conc, "gen": gen,
            "rounds": rounds,
            "out": int(r["output_tokens"]) if r.get("output_tokens") else conc * gen,
            # The prompt's time is the binary's (its engine's prefill fit, attention included):
            # the decode fit fits what is left.
            "prefill": (gpu_row(out, r["gpu"]).get("prefill_s") or 0.0) if e2e else 0,
            "meas": float(r["measured"]), "multi": multi, "cards": 1, "comm": 0.0,
            # A mixture of experts' fused-MoE floors per step: the binary's, not fitted.
            "moe": gpu_row(out, r["gpu"]).get("moe_floor_s") or 0.0,
        }
        # Mostly the prompt (more than half of the binary's time is prefill), or queued in rounds
        # (later rounds' prompts run inside the decode steps): validate_fits fit_groups leaves
        # such a row out of the dense decode groups.
        d["prompt_bound"] = bool(e2e and (rounds > 1 or (
            b.get("seconds") and rounds * d["prefill"] > 0.5 * b["seconds"])))
        if b.get("moe_expert_gib"):
            # A mixture of experts: the binary's bytes a step reads (its shared weights, the
            # experts its tokens touch, the KV cache), the touched experts apart (they stream at
            # kMoeExpertBandwidthShare of eta), and the compute of its active parameters.
            d.update(bytes=b["moe_read_gib"] * 2**30, experts=b["moe_expert_gib"] * 2**30,
                     t_compute=2 * out["active_params_b"] * 1e9 * at_once / flops_rate)
        if multi:
            # Tensor parallel over every card of the offer (the fastest layout of a
            # bandwidth-bound decode): each card reads its share; the collectives and the prefill
            # are the binary's, which no decode efficiency changes.
            b = gpu_row(out, r["gpu"])
            d.update(cards=int(r["gpus"]), comm=b.get("comm_s") or 0.0)
        data.append(d)
    return data


def prefill_points(binary, rows):
    """The fit set's single-GPU prompt-processing rows: tokens / s = rate x eta, with rate the
    engine's tensor TFLOPS (tensor_tflops) over the binary's FLOPs per prompt token (2 x params
    plus causal attention over the prompt, prefill_flops_of)."""
    cards = catalog()
    pts = []
    for r in rows:
        if r["category"] != "prefill" or r["gpus"] not in ("", "1"):
            continue
        out = burst(binary, args_of(r))
        peak = tensor_tflops(cards[r["gpu"]], r["precision"] or "fp16", r["engine"] == "llama.cpp",
                             r["gpu"])
        pre = out["prefill"]
        pts.append({"row": r, "source": r["source"], "engine": r["engine"],
                    "rate": peak * 1e12 * pre["prompt_tokens"] / pre["flops_per_sequence"],
                    "meas": float(r["measured"])})
    return pts


def loso_predictions(binary, fit_rows):
    """Row id -> the prediction with every fitted parameter refitted without the row's source:
    the binary's prediction scaled by the mirror's ratio (refit / full fit), so the mirror's own
    approximations cancel. Rows whose source feeds no fit keep the binary's prediction."""
    data = decode_points(binary, fit_rows)
    full = fit_groups(data)
    share_full = fit_moe_share(data, full)[0]
    out = {}
    ppts = prefill_points(binary, fit_rows)
    pfull = prefill_fit(ppts)
    for src in sorted({q["source"] for q in ppts}):
        rest = prefill_fit([q for q in ppts if q["source"] != src])
        for q in ppts:
            if q["source"] == src:
                out[q["row"]["id"]] = predict(binary, q["row"]) * prefill_lookup(
                    rest, q) / prefill_lookup(pfull, q)
    lpts = load_points(fit_rows, lambda r: burst(binary, args_of(r)))
    lfull = load_fit(lpts)
    for src in sorted({p["source"] for p in lpts}):
        rest = load_fit([p for p in lpts if p["source"] != src])
        for p in lpts:
            if p["source"] == src:
                out[p["row"]["id"]] = predict(binary, p["row"]) * lmirror(p, rest) / lmirror(
                    p, lfull)
    pts = diffusion_points(binary, fit_rows)
    dfull = dfit_groups(pts)
    for src in sorted({p["source"] for p in pts}):
        rest = dfit_groups([p for p in pts if p["source"] != src])
        for p in pts:
            if p["source"] == src:
                pred = predict(binary, p["row"])
                out[p["row"]["id"]] = pred * dmirror(p, *dlookup(rest, p)) / dmirror(
                    p, *dlookup(dfull, p))
    opts = voff.points(fit_rows, lambda r: burst(binary, args_of(r)), gpu_row)
    for src in sorted({p["source"] for p in opts}):
        rest = voff.fit([p for p in opts if p["source"] != src]) or voff.OFFLOAD_H2D
        for p in opts:
            if p["source"] == src:
                out[p["row"]["id"]] = voff.mirror(p, rest)
    vpts = video_points(binary, fit_rows)
    for src in sorted({v["source"] for v in vpts}):
        rest = video_eta([(v["pred"], v["meas"]) for v in vpts if v["source"] != src])
        for v in vpts:
            if v["source"] == src:
                out[v["row"]["id"]] = v["pred"] * VIDEO_ETA / rest
    for src in sorted({d["source"] for d in data}):
        rest = fit_groups([d for d in data if d["source"] != src])
        share_rest = fit_moe_share([d for d in data if d["source"] != src], rest)[0]
        for d in data:
            if d["source"] != src:
                continue
            pred = predict(binary, d["row"])
            if pred is None:
                continue
            out[d["row"]["id"]] = pred * mirror(d, *lookup(rest, d), share_rest) / mirror(
                d, *lookup(full, d), share_full)
    return out


def video_points(binary, rows):
    """The fit set's one-card video rows with the binary's prediction (seconds, at VIDEO_ETA).
    Rows on several cards are scored, not fitted (the sequence-parallel rule)."""
    pts = [{"row": r, "source": r["source"], "pred": predict(binary, r),
            "meas": float(r["measured"])} for r in rows
           if r["category"] == "diffusion_video" and r["gpus"] in ("", "1") and
           not voff.is_offload(r)]  # an offloaded run's copies fit their own rate
    return [p for p in pts if p["pred"] is not None]  # a row no card holds is scored, not fitted


# src/cost/attention_rate.cpp: FlashAttention 2 on a full Hopper die reaches 0.35 / 0.73 of the
# share it reaches on an A100; FA3, and every other card, 1.
HOPPER = ("H100_PCIE", "H100_NVL", "H100_SXM", "H800_SXM", "H200", "H200_NVL", "GH200")

# src/cost/l2_cache.cpp: the cards whose listed L2 (64 MiB or more) holds off a UNet's
# activation roof (bench/README.md, "A UNet's activation roof off on cards with a 64 MB L2").
UNET_ROOF_FREE = ("RTX_4090", "RTX_4080", "RTX_4080_SUPER", "RTX_5090", "RTX_5080")


def attention_share(gpu, kernel):
    return 0.35 / 0.73 if kernel != "fa3" and gpu in HOPPER else 1.0


def diffusion_points(binary, rows):
    cards = catalog()
    pts = []
    for r in rows:
        # Video rows feed no fit: compute-bound at seconds a step, they say nothing of the
        # per-call floor, and the DiT's efficiency is the prior (docs/cost-model.md, "Video").
        if not r["category"].startswith("diffusion") or r["category"] == "diffusion_video":
            continue
        if voff.is_offload(r):
            continue  # its copies fit their own rate (validate_offload.py)
        out = burst(binary, args_of(r))
        g, d, m = cards[r["gpu"]], out["diffusion"], out["memory_gib"]
        b = int(r["batch"] or 1)
        # An image DiT is priced as a video denoiser (src/cost/diffusion.cpp, image_dit): the
        # video fit's efficiency, its self-attention at the kernel's share of the card.
        image_dit = d["architecture"] == "dit" and bool(r.get("resolution"))
        attn_extra = d["attention_flops_per_pass"] * d["passes"] * b * (
            1 / attention_share(r["gpu"], r.get("attention_kernel") or "fa2") - 1) \
            if image_dit else 0.0
        pts.append({
            "row": r, "source": r["source"], "arch": d["architecture"], "memory": g["memory"],
            # One call reads the weights and pays the floor t0; a step makes `calls` of them
            # (1 when guidance's passes run as one batch, 2 when they run in turn).
            "calls": d["calls_per_step"],
            "bytes": (m["weights"] + m["activations"]) * 2**30 * d["calls_per_step"],
            "bw": float(g["mem_bw_gbs"]) * 1e9,
            "peak": tensor_tflops(g, r["precision"] or "fp16", False, r["gpu"]) * 1e12,
            "flops": d["flops_per_pass"] * d["passes"] * b + attn_extra,
            "decode": d["decode_flops"] * b,
            "eta_override": VIDEO_ETA if image_dit else None,  # the video row's eta
            # Latent positions a step processes: a UNet's activation traffic scales with them.
            # A card whose L2 holds them off has no such roof (UNET_ROOF_FREE).
            "positions": d["latent_tokens"] * d["passes"] * b
            if d["architecture"] == "unet" and r["gpu"] not in UNET_ROOF_FREE else 0,
            "steps": int(r["steps"] or 1),
            "audio": float(r["audio_s"]) * b if r["category"] == "diffusion_audio" else None,
            "latency": r["metric"] == "seconds_per_batch",
            "meas": float(r["measured"]),
        })
    return pts


def fit(binary, rows):
    data = decode_points(binary, rows)
    fitted = fit_groups(data)
    share, n = fit_moe_share(data, fitted)
    print(f"  // kMoeExpertBandwidthShare (include/burst/cost_model.h): {share:.2f} ({n} rows)")
    print("  // decode_fits: engine, family, eta_bw, t0_s, fit-set rows")
    for (eng, fam), (eta, t0, n) in sorted(fitted.items(), key=lambda kv: (kv[0][0] == "", kv[0])):
        if (eng, fam) == ("", ""):
            print(f"  // default_calibration: eta_bw {eta:.3f}, t0_s {t0:.5f} ({n} rows)")
            continue
        print(f'      {{"{eng}", "{fam}", {eta:.3f}, {t0:.5f}, {n}}},')
    print("  // prefill_fits: engine, eta_compute, fit-set rows")
    for eng, (eta, n) in sorted(prefill_fit(prefill_points(binary, rows)).items()):
        print(f'      {{"{eng}", {eta:.3f}, {n}}},')
    opts = voff.points(rows, lambda r: burst(binary, args_of(r)), gpu_row)
    h2d = voff.fit(opts)
    print(f"  // offload (src/cost/cost_internal.h): kOffloadHostToDeviceBps "
          f"{'the prior' if h2d is None else f'{h2d:.4g}'} ({len(opts)} rows)")
    rates, loaders = load_fit(load_points(rows, lambda r: burst(binary, args_of(r))))
    print("  // weight load (src/cost/weight_load.cpp; streaming and *-streaming: "
          "src/cost/streaming_loader.cpp): read rates, bytes/s; loaders (fixed_s, s_per_gb)")
    for kind, bps in sorted(rates.items()):
        print(f"      {{\"{kind}\", {bps:.4g}}},")
    for name, (fixed, per_gb) in sorted(loaders.items()):
        print(f"      {{\"{name}\", {fixed:.2f}, {per_gb:.3f}}},")
    pts = diffusion_points(binary, rows)
    dfit = dfit_groups(pts)
    vpts = video_points(binary, rows)
    print("  // diffusion_fits: architecture, memory, eta_compute, t0_s, fit-set rows")
    if vpts:
        eta = video_eta([(v["pred"], v["meas"]) for v in vpts])
        res = [v["pred"] * VIDEO_ETA / eta / v["meas"] - 1 for v in vpts]
        print(f'      {{"video", "", {eta:.3f}, (the pooled t0), {len(vpts)}}},  '
              f'// median {statistics.median(abs(x) for x in res) * 100:.1f}%')
    for (arch, mem), (eta, t0, n, act) in sorted(dfit.items(),
                                                  key=lambda kv: (kv[0][0] == "", kv[0])):
        res = [(dmirror(p, eta, t0, act) - p["meas"]) / p["meas"] for p in pts
               if (p["arch"], p["memory"]) == (arch or p["arch"], mem or p["memory"])]
        print(f'      {{"{arch}", "{mem}", {eta:.3f}, {t0:.5f}, {n}}},  '
              f'// median {statistics.median(abs(x) for x in res) * 100:.1f}%')
        if arch == "dit":
            # Round 3 of the image rounds priced an image DiT as a video one and fitted nothing;
            # by its rule the code keeps round 2's t0 (bench/README.md, "An image DiT priced as
            # a video DiT: the rule"). Pasting this row's t0 would be a new fit: a round of its own.
            print("      // not pasted: src/cost/diffusion.cpp keeps the DiT t0 of round 2 (0.04155) "
                  "by round 3's rule")
    act = dfit.get(("unet", ""), (0, 0, 0, 0.0))[3]
    print(f"  // kUnetActivationBytesPerPosition (src/cost/cost_internal.h): {act:.4g}")


def load(path):
    return list(csv.DictReader(open(path)))


def check_split(fit_rows, held_rows):
    """Every row's source is listed in sources.csv, in the set of the file the row is in: a
    source is either fitted on or held out, never both."""
    sets = {r["source"]: r["set"] for r in load(SOURCES)}
    for rows, want in ((fit_rows, "fit"), (held_rows, "held_out")):
        for r in rows:
            got = sets.get(r["source"])
            if got != want:
                sys.exit(f"row {r['id']}: source {r['source']} is {got or 'not listed'} in "
                         f"{SOURCES}, but the row is in the {want} table")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--burst", default=os.path.join(ROOT, "build", "burst"))
    ap.add_argument("--write-doc", action="store_true")
    ap.add_argument("--fit", action="store_true")
    a = ap.parse_args()
    fit_rows, held_rows = load(CSV), load(HELD_OUT)
    check_split(fit_rows, held_rows)
    if a.fit:
        fit(a.burst, fit_rows)
        return
    t = table(a.burst, fit_rows, held_rows, loso_predictions(a.burst, fit_rows))
    t += f"\n\nScored {datetime.date.today().isoformat()} with `python3 bench/validate_cost_model.py`."
    if not a.write_doc:
        print(t)
        return
    for path in (DOC, README):
        doc = open(path).read()
        if BEGIN not in doc:
            sys.exit(f"{path} has no {BEGIN} marker")
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        body = t if path == DOC else t[t.index("| category |"):]
        open(path, "w").write(head + BEGIN + "\n" + body + "\n" + END + tail)


if __name__ == "__main__":
    main()
