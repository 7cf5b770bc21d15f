"""A UNet's second roof: the rule's four forms compared on the fit set alone (bench/README.md,
"A UNet's second roof: the rule"). Reads measurements.csv only, never held_out.csv.

    python3 bench/unet_roof_forms.py [--burst build/burst] [-v]

Each form is a mirror of the step src/cost/cost_model.cpp prices for a `unet` denoiser, from
`burst estimate --json`'s parts (validate_cost_model.diffusion_points: weights, FLOPs, tensor
rate, calls, the latent positions a step processes), plus the card's FP32 (non-tensor) rate read
from src/cost/fp32_rate.cpp:

1. kept:        max(bytes / (bw x eta_bw), FLOPs / (tensor x 0.45), calls x t0)
2. roof:        max(bytes / (bw x eta_bw), FLOPs / (tensor x 0.45), r x FLOPs / fp32, calls x t0)
3. sum:         max(bytes / (bw x eta_bw), FLOPs / (tensor x 0.45) + r x FLOPs / fp32, calls x t0)
4. activations: max(bytes / (bw x eta_bw), FLOPs / (tensor x 0.45), a x positions / bw, calls x t0)

The constant (r or a) and t0 are grid-searched together for least summed absolute log error
over the fit set's UNet timing rows; on ties the larger t0 (as validate_fits.dfit_groups).
Leave one source out refits both without the source's rows. A card without an FP32 rate gets no
roof in forms 2-3. Prints per form: the fitted constants, the fit and leave-one-source-out
median over the UNet rows and over all the fit set's image rows, and with -v every row."""
import argparse
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_cost_model as vc  # noqa: E402
from validate_fits import ETA_COMPUTE, PRIOR  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fp32_rates():
    text = open(os.path.join(ROOT, "src/cost/fp32_rate.cpp")).read()
    return {m.group(1): float(m.group(2)) * 1e12
            for m in re.finditer(r'\{"([A-Z0-9_]+)",\s*([0-9.]+),', text)}


def points(binary):
    rows = vc.load(vc.CSV)
    fp32 = fp32_rates()
    pts = []
    for p in vc.diffusion_points(binary, rows):  # a UNet's "positions": passes x batch x latent
        if p["row"]["category"] != "diffusion_image":
            continue
        p["fp32"] = fp32.get(p["row"]["gpu"])
        pts.append(p)
    return pts


def step(form, p, k, t0):
    bw = p["bytes"] / (p["bw"] * PRIOR[0])
    tensor = p["flops"] / (p["peak"] * ETA_COMPUTE)
    floor = t0 * p["calls"]
    unet = p["arch"] == "unet"
    if form == "roof" and unet and p["fp32"]:
        return max(bw, tensor, k * p["flops"] / p["fp32"], floor)
    if form == "sum" and unet and p["fp32"]:
        return max(bw, tensor + k * p["flops"] / p["fp32"], floor)
    if form == "activations" and unet:
        return max(bw, tensor, k * p["positions"] / p["bw"], floor)
    return max(bw, tensor, floor)


def predict(form, p, k, t0):
    s = step(form, p, k, t0)
    if p["latency"]:
        return p["steps"] * s + p["decode"] / (p["peak"] * ETA_COMPUTE)
    return 1 / s


GRIDS = {
    "kept": [0.0],
    "roof": [0.0] + [round(0.02 * i, 2) for i in range(1, 76)],
    "sum": [0.0] + [round(0.02 * i, 2) for i in range(1, 76)],
    # bytes a latent position moves per step: up to 40 MB (SD 1.5's activations at 64 x 64 are
    # some MB a tensor, hundreds of tensors a pass).
    "activations": [0.0] + [round(0.25e6 * i) for i in range(1, 161)],
}
T0_GRID = [j * 0.0005 for j in range(0, 161)]


def fit(form, pts):
    def cost(k, t0):
        return round(sum(abs(math.log(predict(form, p, k, t0) / p["meas"])) for p in pts), 9)
    best = min(((cost(k, t0), -t0, k) for k in GRIDS[form] for t0 in T0_GRID))
    return best[2], -best[1]


def err(pred, meas):
    return pred / meas - 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--burst", default="build/burst")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    pts = points(a.burst)
    unet = [p for p in pts if p["arch"] == "unet"]
    others = [p for p in pts if p["arch"] != "unet"]
    print(f"{len(pts)} fit-set image timing rows, {len(unet)} of them UNet, from "
          f"{len({p['source'] for p in unet})} sources")
    for form in ("kept", "roof", "sum", "activations"):
        k, t0 = fit(form, unet)
        full = {p["row"]["id"]: err(predict(form, p, k, t0), p["meas"]) for p in unet}
        loso = {}
        for src in sorted({p["source"] for p in unet}):
            ks, t0s = fit(form, [p for p in unet if p["source"] != src])
            for p in unet:
                if p["source"] == src:
                    loso[p["row"]["id"]] = err(predict(form, p, ks, t0s), p["meas"])
        # The image rows of other architectures keep today's price in every form.
        for p in others:
            full[p["row"]["id"]] = loso[p["row"]["id"]] = None
        u_fit = statistics.median(abs(v) for v in full.values() if v is not None)
        u_loso = statistics.median(abs(v) for v in loso.values() if v is not None)
        print(f"{form:12s} constant {k:<10g} t0 {t0 * 1e3:5.1f} ms   UNet rows: fit {u_fit:6.1%}"
              f"  leave one source out {u_loso:6.1%}")
        if a.v:
            for p in unet:
                i = p["row"]["id"]
                print(f"    {i:>5s} {p['row']['gpu']:10s} {p['row']['model']:8s} "
                      f"b{p['row']['batch'] or 1:>3s}  fit {full[i]:+7.1%}  loso {loso[i]:+7.1%}")
    if others:
        print(f"{len(others)} image rows of other architectures are priced as today in every form")


if __name__ == "__main__":
    main()
