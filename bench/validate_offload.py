"""Offload's transfer time, the part of bench/validate_cost_model.py that fits it: the mirror of
src/cost/offload_time.cpp (what each offload copies to the card, and when) and the fit of its one
rate on the fit set's timing rows with an offload (bench/README.md, "Offload's transfer time:
the rule"). Pure arithmetic over rows and burst's JSON; the main script runs burst and reports."""
import math

# The binary's rate (src/cost/cost_internal.h, kOffloadHostToDeviceBps) and the fit's grid.
OFFLOAD_H2D = 1.6788e9
H2D_GRID = [10 ** (8 + k / 40) for k in range(0, 121)]  # 0.1 to 100 GB/s
GIB = 2.0 ** 30


def is_offload(row):
    return row.get("offload") in ("model", "sequential")


def copies(p, h2d):
    """(seconds a denoiser call copies, seconds a round copies) at `h2d` bytes a second."""
    parts = p["parts"]
    others = parts["encoders_gib"] + parts["vae_gib"]
    if parts["offload"] == "sequential":
        return parts["denoiser_gib"] * GIB / h2d, others * GIB / h2d
    return 0.0, (parts["denoiser_gib"] * parts["experts"] + others) * GIB / h2d


def points(rows, estimate, gpu_row):
    """The diffusion timing rows of `rows` with an offload, and what burst's JSON says of them
    at the binary's rate (estimate: row -> JSON; gpu_row: JSON, card -> its entry)."""
    pts = []
    for r in rows:
        if not r["category"].startswith("diffusion") or not is_offload(r):
            continue
        out = estimate(r)
        g = gpu_row(out, r["gpu"])
        if not g["fits"]:
            continue
        p = {"row": r, "source": r["source"], "parts": out["diffusion_memory"],
             "calls": out["diffusion"]["calls_per_step"], "steps": int(r["steps"] or 1),
             "step_s": g["step_s"], "seconds": g["seconds"], "metric": r["metric"],
             "meas": float(r["measured"])}
        call, rnd = copies(p, OFFLOAD_H2D)
        p["base_step"] = p["step_s"] - call * p["calls"]
        p["base_seconds"] = p["seconds"] - call * p["calls"] * p["steps"] - rnd  # one round
        pts.append(p)
    return pts


def mirror(p, h2d):
    """The row's prediction, in its metric, at `h2d`."""
    call, rnd = copies(p, h2d)
    step = p["base_step"] + call * p["calls"]
    if p["metric"] == "seconds_per_step":
        return step
    if p["metric"] == "iterations_per_s":
        return 1 / step
    return p["base_seconds"] + call * p["calls"] * p["steps"] + rnd


def fit(pts):
    """The rate of least summed absolute log error; None with fewer than three rows from two
    sources (the rule's cited prior applies then)."""
    if len(pts) < 3 or len({p["source"] for p in pts}) < 2:
        return None
    best = None
    for h2d in H2D_GRID:
        loss = sum(abs(math.log(mirror(p, h2d) / p["meas"])) for p in pts)
        if best is None or loss < best[0] - 1e-12:
            best = (loss, h2d)
    return best[1]
