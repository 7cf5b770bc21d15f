"""The diffusion-activation forms compared on the fit set alone (bench/README.md, "Diffusion
activations, the next round: the rule"). Reads measurements.csv only, never held_out.csv.

    python3 bench/diffusion_activation_forms.py [--burst build/burst] [-v]

It reads `burst estimate --json`'s diffusion_memory parts `denoise_copy_gib` and `decode_pixels`,
which fd03d50 added and b41d5b1 reverted (the kept form stayed): build the binary from fd03d50's
src and include (`git checkout fd03d50 -- src include`, build, then `git checkout HEAD -- src
include`) and pass it with --burst.

The data: the fit set's diffusion peaks (memory_diffusion), and as upper bounds every fit-set
diffusion timing row, which ran on its cards: the peak priced for it (its pipeline, its own
offload, each card of a sequence-parallel group holding its share of the activations) must fit
the card's usable memory (src/cost/memory.cpp, usable_gib), or burst would refuse a run that was
measured. The parts come from `burst estimate --json`'s diffusion_memory; the peak is the mirror
of src/cost/diffusion_memory.cpp's diffusion_peak for each form:

1. kept: the denoiser's activations at kDiffusionActivationBytesPerParam, no decode term;
2. the denoiser's activations at k_tok copies of a call's hidden state, the decode's at k_px
   bytes a pixel its VAE's last layers hold at once;
3. form 2 with k_px = 0.

Forms 2 and 3 keep the old allowance where a workload has no resolution (audio). The lower
bounds (bench/validation/oom_bounds.csv, "Diffusion activations, lower bounds: the rule") are
runs that ran out of memory on their card: a form breaks one when it prices the run within the
card's usable memory. Each form's constants are grid-searched: fewest bounds broken, then least
summed absolute log error over the peaks; leave one source out refits without the source's
peaks and bounds. Prints per form the fit and leave-one-source-out median errors, the bounds
broken, and the constants."""
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_cost_model as vc  # noqa: E402

GIB = 2.0 ** 30
K_TOK_GRID = [0.0] + [round(1.25 ** i, 3) for i in range(0, 40)]
K_PX_GRID = [0.0] + [round(100 * 1.25 ** i, 1) for i in range(0, 36)]
# include/burst/cost_model.h: kVramReserveGib, kVramHeadroom (include/burst/cost_model.h).
RESERVE_GIB, HEADROOM = 0.5, 0.02


def usable_gib():
    """name -> usable GiB on one card (driver_vram_gib x (1 - headroom) - reserve)."""
    cards, cur = {}, None
    for line in open(os.path.join(vc.ROOT, "config", "gpus.yaml")):
        m = re.match(r"\s*- name:\s*(\S+)", line)
        if m:
            cur = cards.setdefault(m.group(1), {})
            continue
        m = re.match(r"\s+(vram_gb|vram_mib):\s*([0-9.]+)", line)
        if m and cur is not None:
            cur[m.group(1)] = float(m.group(2))
    return {n: usable_of(c["vram_mib"] / 1024 if "vram_mib" in c else c["vram_gb"])
            for n, c in cards.items()}


def usable_of(vram_gib):
    """src/cost/memory.cpp, usable_gib: driver_vram_gib x (1 - headroom) - reserve."""
    return vram_gib * (1 - HEADROOM) - RESERVE_GIB


def activations(p, form, k_tok, k_px):
    """(denoise, decode) activations in GiB."""
    if form == 1 or p["denoise_copy_gib"] == 0:
        return p["activations_gib"], 0.0
    return k_tok * p["denoise_copy_gib"], (k_px * p["decode_pixels"] / GIB if form == 2 else 0.0)


def peak(p, form, k_tok, k_px, group=1):
    """GiB on one card: the phases the offload keeps, each card of a sequence-parallel group
    holding 1/group of the denoiser's activations; the decode runs whole on one card (Wan's on
    rank 0, xDiT's CogVideoX on every rank)."""
    a_d, a_v = activations(p, form, k_tok, k_px)
    a_d = a_d / group
    if p["offload"] == "model":
        return max(p["encoders_gib"], p["denoiser_gib"] + a_d, p["vae_gib"] + a_v)
    if p["offload"] == "sequential":
        return max(p["block_gib"] + a_d, a_v)
    return p["denoiser_gib"] * p["experts"] + p["encoders_gib"] + p["vae_gib"] + max(a_d, a_v)


def points(binary):
    rows = vc.load(vc.CSV)
    usable = usable_gib()
    peaks, bounds = [], []
    for r in rows:
        cat = r["category"]
        if cat == vc.DM_CATEGORY:
            out = vc.burst(binary, vc.args_of(r))
            peaks.append({"row": r, "source": r["source"], "meas": float(r["measured"]),
                          "parts": out["diffusion_memory"]})
        elif cat.startswith("diffusion") and (r["resolution"] or r["audio_s"]):
            out = vc.burst(binary, vc.args_of(r))
            bounds.append({"row": r, "source": r["source"], "parts": out["diffusion_memory"],
                           "group": int(r["gpus"] or 1), "usable": usable[r["gpu"]]})
    return peaks, bounds


OOM = os.path.join(vc.ROOT, "bench", "validation", "oom_bounds.csv")


def lower_bounds(binary):
    """bench/validation/oom_bounds.csv: runs that ran out of memory on their card (the rule:
    bench/README.md, "Diffusion activations, lower bounds"), with their parts."""
    if not os.path.exists(OOM):
        return []
    usable = usable_gib()
    out = []
    for r in vc.load(OOM):
        a = ["--model", r["model"], "--mode", "diffusion", "--batch", r["batch"] or "1",
             "--items", r["batch"] or "1", "--steps", "1", "--resolution", r["resolution"]]
        for col, flag in (("precision", "--precision"), ("frames", "--frames"),
                          ("offload", "--offload"), ("vae_tiling", "--vae-tiling")):
            if r.get(col):
                a += [flag, r[col]]
        g = int(r["gpus"] or 1)
        if g > 1:
            a += ["--gpus", str(g), "--sequence-parallel", str(g)]
        parts = vc.burst(binary, a)["diffusion_memory"]
        cap = usable_of(float(r["vram_gib"])) if r.get("vram_gib") else usable[r["gpu"]]
        out.append({"row": r, "source": r["source"], "parts": parts, "group": g, "usable": cap})
    return out


def broken(bounds, form, k_tok, k_px, lower=()):
    """The upper bounds priced over their card's usable memory, and the lower bounds priced
    within it."""
    return ([b for b in bounds if peak(b["parts"], form, k_tok, k_px, b["group"]) > b["usable"]] +
            [b for b in lower if peak(b["parts"], form, k_tok, k_px, b["group"]) <= b["usable"]])


def fit(peaks, bounds, form, lower=()):
    """The constants breaking the fewest bounds (of either kind), then of least summed absolute
    log error over the peaks."""
    best = None
    for k_tok in (K_TOK_GRID if form in (2, 3) else [0.0]):
        for k_px in (K_PX_GRID if form == 2 else [0.0]):
            n = len(broken(bounds, form, k_tok, k_px, lower))
            loss = sum(abs(math.log(peak(p["parts"], form, k_tok, k_px) / p["meas"]))
                       for p in peaks)
            if best is None or (n, loss) < (best[0], best[1] - 1e-12):
                best = (n, loss, k_tok, k_px)
    return best[2:]


def main():
    binary = sys.argv[sys.argv.index("--burst") + 1] if "--burst" in sys.argv else "build/burst"
    peaks, bounds = points(binary)
    lower = lower_bounds(binary)
    print(f"{len(peaks)} peaks, {len(bounds)} upper bounds, {len(lower)} lower bounds (fit set)")
    for form in (1, 2, 3):
        k = fit(peaks, bounds, form, lower)
        errs = [peak(p["parts"], form, *k) / p["meas"] - 1 for p in peaks]
        loso = []
        for src in sorted({p["source"] for p in peaks}):
            kr = fit([p for p in peaks if p["source"] != src],
                     [b for b in bounds if b["source"] != src], form,
                     [b for b in lower if b["source"] != src])
            for p in peaks:
                if p["source"] == src:
                    loso.append(peak(p["parts"], form, *kr) / p["meas"] - 1)
        up = broken(bounds, form, *k)
        low = broken([], form, *k, lower)
        print(f"form {form}: k_tok {k[0]}, k_px {k[1]} B/pixel; fit "
              f"{statistics.median(map(abs, errs)) * 100:.1f}%, leave one source out "
              f"{statistics.median(map(abs, loso)) * 100:.1f}% ({len(peaks)} peaks); upper bounds "
              f"broken {len(up)} {[b['row']['id'] for b in up]}, lower bounds broken {len(low)} "
              f"{[b['row']['id'] for b in low]}")
        if "-v" in sys.argv:
            for p, e in zip(peaks, errs):
                print(f"   {p['row']['id']:>4} {p['row']['model']:<22} {p['meas']:7.2f} "
                      f"{peak(p['parts'], form, *k):7.2f} {e * 100:+6.1f}%")


if __name__ == "__main__":
    main()
