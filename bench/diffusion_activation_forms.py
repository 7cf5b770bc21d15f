"""The diffusion-activation forms compared on the fit set alone (bench/README.md, "Diffusion
activations, the next round: the rule"). Reads measurements.csv only, never held_out.csv.

    python3 bench/diffusion_activation_forms.py [--burst build/burst] [-v]

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

Forms 2 and 3 keep the old allowance where a workload has no resolution (audio). Each form's
constants are grid-searched (least summed absolute log error over the peaks) among those that
break no upper bound; leave one source out refits without the source's peaks and bounds. Prints
per form the fit and leave-one-source-out median errors, the bounds broken, and the constants."""
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
# src/include: kVramReserveGib, kVramHeadroom (include/burst/cost_model.h).
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
    return {n: (c["vram_mib"] / 1024 if "vram_mib" in c else c["vram_gb"]) * (1 - HEADROOM) -
            RESERVE_GIB for n, c in cards.items()}


def activations(p, form, k_tok, k_px):
    """(denoise, decode) activations in GiB."""
    if form == 1 or p["denoise_copy_gib"] == 0:
        return p["activations_gib"], 0.0
    return k_tok * p["denoise_copy_gib"], (k_px * p["decode_pixels"] / GIB if form == 2 else 0.0)


def peak(p, form, k_tok, k_px, group=1):
    """GiB on one card: the phases the offload keeps, each card of a sequence-parallel group
    holding 1/group of the activations (src/cost/parallel.cpp, sequence_parallel_card_gib)."""
    a_d, a_v = activations(p, form, k_tok, k_px)
    a_d, a_v = a_d / group, a_v / group
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


def broken(bounds, form, k_tok, k_px):
    return [b for b in bounds if peak(b["parts"], form, k_tok, k_px, b["group"]) > b["usable"]]


def fit(peaks, bounds, form):
    """The constants of least summed absolute log error among those breaking no bound; None
    when every candidate breaks one."""
    best = None
    for k_tok in (K_TOK_GRID if form in (2, 3) else [0.0]):
        for k_px in (K_PX_GRID if form == 2 else [0.0]):
            if broken(bounds, form, k_tok, k_px):
                continue
            loss = sum(abs(math.log(peak(p["parts"], form, k_tok, k_px) / p["meas"]))
                       for p in peaks)
            if best is None or loss < best[0] - 1e-12:
                best = (loss, k_tok, k_px)
    return None if best is None else best[1:]


def main():
    binary = sys.argv[sys.argv.index("--burst") + 1] if "--burst" in sys.argv else "build/burst"
    peaks, bounds = points(binary)
    print(f"{len(peaks)} peaks, {len(bounds)} upper bounds (fit set)")
    for form in (1, 2, 3):
        k = fit(peaks, bounds, form)
        if k is None:
            print(f"form {form}: every candidate breaks a bound")
            continue
        errs = [peak(p["parts"], form, *k) / p["meas"] - 1 for p in peaks]
        loso = []
        for src in sorted({p["source"] for p in peaks}):
            kr = fit([p for p in peaks if p["source"] != src],
                     [b for b in bounds if b["source"] != src], form)
            for p in peaks:
                if p["source"] == src:
                    loso.append(peak(p["parts"], form, *kr) / p["meas"] - 1)
        print(f"form {form}: k_tok {k[0]}, k_px {k[1]} B/pixel; fit {statistics.median(map(abs, errs)) * 100:.1f}%, "
              f"leave one source out {statistics.median(map(abs, loso)) * 100:.1f}% "
              f"({len(peaks)} peaks); bounds broken {len(broken(bounds, form, *k))}")
        if "-v" in sys.argv:
            for p, e in zip(peaks, errs):
                print(f"   {p['row']['id']:>4} {p['row']['model']:<22} {p['meas']:7.2f} "
                      f"{peak(p['parts'], form, *k):7.2f} {e * 100:+6.1f}%")
    kept = broken(bounds, 1, 0, 0)
    if kept:
        print("bounds the kept form breaks:", [b["row"]["id"] for b in kept])


if __name__ == "__main__":
    main()
