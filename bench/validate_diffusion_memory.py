"""The diffusion peak-memory fit (bench/README.md, "Diffusion peak memory: the rule" and
"scored"): the activation constant of src/cost/cost_internal.h (kDenoiseActivationCopies) fitted
on the fit set's memory_diffusion rows by least absolute log error, and the mirror of
src/cost/diffusion_memory.cpp's diffusion_peak that the fit and leave-one-source-out recompute the
peak with, from `burst estimate --json`'s diffusion_memory parts. The rule's second constant (the
decode's, copies of the decoded pixels) was dropped: with it at 0 the fit set's
leave-one-source-out error was lower (14.6% against 17.7%)."""
import math

CATEGORY = "memory_diffusion"
# The binary's constant (src/cost/cost_internal.h); the grid the fit searches.
DENOISE_COPIES = 69.389
DENOISE_GRID = [0] + [round(1.25 ** i, 3) for i in range(0, 40)]


def peak(p, denoise):
    """GiB: src/cost/diffusion_memory.cpp's diffusion_peak."""
    a_d = denoise * p["denoise_per_copy_gib"]
    if p["offload"] == "model":
        return max(p["encoders_gib"], p["vae_gib"], p["denoiser_gib"] + a_d)
    held = p["block_gib"] if p["offload"] == "sequential" else (
        p["denoiser_gib"] * p["experts"] + p["encoders_gib"] + p["vae_gib"])
    return held + a_d


def points(rows, estimate):
    """The memory_diffusion rows of rows with their parts (estimate: row -> burst's JSON)."""
    return [{"row": r, "source": r["source"], "meas": float(r["measured"]),
             "parts": estimate(r)["diffusion_memory"]} for r in rows if r["category"] == CATEGORY]


def fit(pts):
    """The denoiser's activation copies of least summed absolute log error over pts."""
    best = None
    for d in DENOISE_GRID:
        loss = sum(abs(math.log(peak(p["parts"], d) / p["meas"])) for p in pts)
        if best is None or loss < best[0] - 1e-12:
            best = (loss, d)
    return best[1]
