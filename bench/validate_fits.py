"""The cost-model validation's fits, pure arithmetic on points the caller built from
`burst estimate --json` (bench/validate_cost_model.py): the roofline's Python mirror and the
decode fit per (engine, memory family), the prefill fit per engine, and the diffusion per-step
overhead per architecture. No I/O; the constants mirror src/cost (default_calibration)."""
import math
import statistics

ETA_COMPUTE = 0.45
PRIOR = (0.766, 0.00214)  # default_calibration(): eta_bw, t0_s
# kMoeExpertBandwidthShare (include/burst/cost_model.h): the routed experts' share of eta_bw.
MOE_SHARE = 0.72


def mirror(d, eta, t0, share=None):
    """The roofline's throughput for one point (src/cost/cost_model.cpp run_time, one GPU): a
    mixture of experts' touched experts ("experts", bytes) at `share` of eta (MOE_SHARE). The KV
    cache's read ("kv", bytes, part of "bytes") adds to the matrix products' roofline (the
    attention kernels run beside them). The engine runs what it admits and queues the rest:
    "rounds" rounds of the admitted batch, each with its prompts' prefill."""
    n = d["cards"]
    extra = d.get("experts", 0.0) * (1 / (MOE_SHARE if share is None else share) - 1)
    kv = d.get("kv", 0.0)
    step = (kv / (n * d["bw"] * eta)
            + max((d["bytes"] - kv + extra) / (n * d["bw"] * eta), d["t_compute"] / n) + t0
            + d["comm"] + d["moe"])
    return d["out"] / (d.get("rounds", 1) * (step * d["gen"] + d["prefill"]))


def residuals(pts, eta, t0):
    return [(mirror(d, eta, t0) - d["meas"]) / d["meas"] for d in pts]


# Groups with fewer rows than this fit eta alone, with the pooled fit's t0: two rows cannot tell
# a slow card from a slow step.
MIN_ROWS_FOR_T0 = 3


def best(pts, t0s=None):
    # Least absolute log ratio (L1: the targets are median errors, one stale measurement cannot
    # drag it, and 3x too fast costs what 3x too slow does): a coarse grid (eta 0.01, t0 0.1 ms),
    # then a fine one (eta 0.002, t0 0.02 ms) around the coarse optimum.
    def search(etas, t0s, top=None):
        for eta in etas:
            for t0 in t0s:
                ss = sum(abs(math.log(mirror(d, eta, t0) / d["meas"])) for d in pts)
                if top is None or ss < top[0]:
                    top = (ss, eta, t0)
        return top
    fixed = t0s is not None
    _, eta, t0 = search([i * 0.01 for i in range(10, 101)],
                        t0s if fixed else [j * 0.0001 for j in range(0, 101)])
    return search([eta + k * 0.002 for k in range(-5, 6) if 0 < eta + k * 0.002 <= 1],
                  t0s if fixed else [t0 + k * 0.00002 for k in range(-5, 6) if t0 + k * 0.00002 >= 0])


def eta_alone(pts, t0):
    """eta_bw for a group too small to tell a slow card from a slow step: each row's own eta at
    the pooled t0 (bisection on the mirror), then their median (for two rows the geometric mean):
    where least absolute error is flat between the rows, its midpoint."""
    etas = []
    for d in pts:
        lo, hi = 0.01, 1.0
        if mirror(d, hi, t0) <= d["meas"]:
            etas.append(hi)
            continue
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mirror(d, mid, t0) < d["meas"] else (lo, mid)
        etas.append((lo + hi) / 2)
    logs = sorted(math.log(e) for e in etas)
    return round(math.exp(statistics.median(logs)), 3)


def fit_groups(data):
    """(engine, family) -> (eta_bw, t0_s, rows), as decode_fits holds them; ("", "") is the
    pooled fit of every single-GPU row (default_calibration's eta_bw and t0_s). Groups of
    MIN_ROWS_FOR_T0 or more rows fit (eta, t0); smaller ones eta alone, with the pooled t0.
    Tensor-parallel rows fit eta alone for an (engine, family) without single-GPU rows (8 x MI300X
    under vLLM): the collectives are link physics, the rest is how the engine reads the card."""
    # Mixture-of-experts rows fit only the experts' share (fit_moe_share), not the dense groups;
    # nor does a row whose time is mostly its prompt or that queued in rounds ("prompt_bound"):
    # a decode fit reads the card's bandwidth, which such a row hardly times.
    single = [d for d in data
              if not d["multi"] and not d.get("experts") and not d.get("prompt_bound")]
    if not single:
        return {}
    _, eta, t0 = best(single)
    fitted = {("", ""): (eta, t0, len(single))}
    groups = {}
    for d in single:
        for key in ((d["engine"], d["family"]), (d["engine"], d["memory"]),
                    ("", d["family"]), ("", d["memory"])):
            groups.setdefault(key, []).append(d)
    for key, pts in sorted(groups.items()):
        if len(pts) >= MIN_ROWS_FOR_T0:
            _, eta, t0 = best(pts)
        else:
            eta, t0 = eta_alone(pts, fitted[("", "")][1]), fitted[("", "")][1]
        fitted[key] = (eta, t0, len(pts))
    multi = {}
    for d in data:
        if (d["multi"] and not d.get("experts") and not d.get("prompt_bound")
                and (d["engine"], d["family"]) not in groups):
            multi.setdefault((d["engine"], d["family"]), []).append(d)
    for key, pts in sorted(multi.items()):
        fitted[key] = (eta_alone(pts, fitted[("", "")][1]), fitted[("", "")][1], len(pts))
    return fitted


def fit_moe_share(data, fitted):
    """(share, rows): kMoeExpertBandwidthShare by least absolute log error over the mixture-of-
    experts rows, each at its dense calibration (lookup), on a grid of 0.30 to 1.00 by 0.01
    (bench/README.md, "Experts' weights at their own bandwidth efficiency: the rule"). A row
    mostly prompt or queued in rounds ("prompt_bound") is scored, not fitted, as in fit_groups."""
    pts = [d for d in data if d.get("experts") and not d.get("prompt_bound")]
    if not pts:
        return (MOE_SHARE, 0)
    cal = [lookup(fitted, d) for d in pts]
    def loss(s):
        return sum(abs(math.log(mirror(d, eta, t0, s) / d["meas"]))
                   for d, (eta, t0) in zip(pts, cal))
    return (min((round(0.30 + i * 0.01, 2) for i in range(71)), key=loss), len(pts))


def lookup(fitted, d):
    """effective_calibration's search: the GPU's family, then its memory technology; in each,
    the named engine (vLLM on HBM when none is named), then every engine; else the prior."""
    named = d["engine"] or ("vllm" if d["memory"] == "hbm" else "")
    like = "vllm" if named in ("tensorrt-llm", "sglang") else named
    for fam in (d["family"], d["memory"]):
        for eng in (named, like, ""):
            if (eng, fam) in fitted:
                return fitted[(eng, fam)][:2]
    return fitted.get(("", ""), PRIOR)[:2]


# An engine's prefill efficiency is fitted from this many rows or more, so that the median
# outvotes one row that disagrees; with fewer it takes what the binary gives an engine without a
# fit (bench/README.md, "Three rows before an engine's prefill efficiency is fitted").
PREFILL_MIN_ROWS = 3


def prefill_fit(pts):
    """engine -> (eta, rows): least absolute log error, the median of log(measured / rate), for
    an engine with PREFILL_MIN_ROWS rows or more."""
    logs = {}
    for q in pts:
        logs.setdefault(q["engine"], []).append(math.log(q["meas"] / q["rate"]))
    return {e: (math.exp(statistics.median(v)), len(v)) for e, v in logs.items()
            if e and len(v) >= PREFILL_MIN_ROWS}


def prefill_lookup(fitted, q):
    """src/cost/engine_rates.cpp prefill_eta: the engine's fit (vLLM's for TensorRT-LLM and
    SGLang), else the prior eta_compute."""
    like = "vllm" if q["engine"] in ("tensorrt-llm", "sglang") else q["engine"]
    for e in (q["engine"], like):
        if e in fitted:
            return fitted[e][0]
    return ETA_COMPUTE


# Diffusion: step = max(calls x bytes / (bw x eta_bw), flops / (tflops x eta), calls x t0) per
# architecture (src/cost/diffusion.cpp diffusion_fits), from the binary's work per pass: the host
# overhead t0 of one denoiser call is a floor the batch amortises (a step makes one call, or two
# when guidance's passes run in turn), the card's sustained tensor rate the ceiling. A UNet's step
# has a fourth term, its activations' traffic: act bytes per latent position a step processes
# (passes x batch x positions) at the bandwidth's prior share (src/cost/cost_internal.h,
# kUnetActivationBytesPerPosition; bench/README.md, "A UNet's second roof").
DIFFUSION_PRIOR = (ETA_COMPUTE, PRIOR[1], 0.0)  # default_calibration(): eta_compute, t0_s


def dmirror(p, eta, t0, act=0.0):
    eta = p.get("eta_override") or eta  # an image DiT: the video fit's (diffusion_points)
    step = max(p["bytes"] / (p["bw"] * PRIOR[0]), p["flops"] / (p["peak"] * eta), t0 * p["calls"],
               act * p.get("positions", 0) / (p["bw"] * PRIOR[0]))
    if p["latency"]:
        return p["steps"] * step + p["decode"] / (p["peak"] * eta)
    if p["audio"] is None:
        return 1 / step
    return (p["steps"] * step + p["decode"] / (p["peak"] * eta)) / p["audio"]


# The UNet activation constant's grid, bytes a latent position (at the bandwidth's prior share).
ACT_GRID = [j * 0.1e6 for j in range(0, 401)]


def dfit_groups(pts):
    """(architecture, "") and ("", "") -> (eta, t0, rows, act). The efficiency is the
    published-MFU prior (ETA_COMPUTE), not fitted; the per-step overhead is, per architecture and
    pooled, and for the UNet group jointly with its activation constant (act; 0 elsewhere, and
    the pooled group takes the UNet's for its UNet rows). Fitting the efficiency too fits each
    source's software: leave-one-source-out on the image rows 36% against 18% with the prior
    (docs/cost-model.md, "diffusion"). Where the rows are all compute-bound they only bound t0
    from above (every smaller t0 fits them alike): the largest t0 of equal error is taken, so an
    estimate errs slow rather than fast; of equal error, the smaller act."""
    def cost(ps, t0, act):
        # Rounded so that t0s the rows cannot tell apart tie, and the larger one wins.
        return round(sum(abs(math.log(dmirror(p, ETA_COMPUTE, t0, act) / p["meas"])) for p in ps),
                     9)

    def best(ps, act):
        t0 = min((cost(ps, j * 0.0005, act), -j * 0.0005) for j in range(0, 161))[1] * -1
        return -min((cost(ps, t, act), -t) for t in [t0 + k * 0.00005 for k in range(-10, 11)]
                    if t >= 0)[1]

    def best_act(ps):
        coarse = min((cost(ps, best(ps, a), a), a) for a in ACT_GRID)[1]
        fine = [coarse + k * 0.01e6 for k in range(-10, 11) if coarse + k * 0.01e6 >= 0]
        return min((cost(ps, best(ps, a), a), a) for a in fine)[1]

    groups = {}
    for p in pts:
        for key in ((p["arch"], ""), ("", "")):
            groups.setdefault(key, []).append(p)
    act = best_act(groups[("unet", "")]) if ("unet", "") in groups else 0.0
    out = {}
    for key, ps in sorted(groups.items()):
        a = act if key[0] in ("unet", "") else 0.0
        out[key] = (ETA_COMPUTE, best(ps, a), len(ps), a)
    return out


def dlookup(fitted, p):
    """(eta, t0, act) for the point's architecture."""
    for key in ((p["arch"], p["memory"]), (p["arch"], ""), ("", p["memory"]), ("", "")):
        if key in fitted:
            return fitted[key][0], fitted[key][1], fitted[key][3]
    return DIFFUSION_PRIOR


# A video denoiser's efficiency (diffusion_fits()'s "video" row): its rows are compute-bound, so
# a time scales as 1 / eta, and the fit is closed-form: the eta that centres the rows' log errors.
VIDEO_ETA = 0.625


def video_eta(pts):
    """pts: (predicted s at VIDEO_ETA, measured s) pairs -> the eta whose median log error is 0."""
    return VIDEO_ETA * math.exp(statistics.median(math.log(p / m) for p, m in pts))
