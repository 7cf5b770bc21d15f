"""The weight-load part of bench/validate_cost_model.py: the mirror of burst's weight-load
arithmetic (include/burst/weight_load.h, src/cost/weight_load.cpp, src/cost/streaming_loader.cpp)
and its fit on the fit set's weight-load rows. Pure arithmetic over rows and burst's JSON; the
main script runs burst and reports."""
import math
import statistics

LOAD = ("weight_load_warm", "weight_load_cold")


# Weight load: bytes / the storage's read rate + the loader's fixed cost + its seconds per GB each
# GPU loads (include/burst/weight_load.h, src/cost/weight_load.cpp). The network and local-disk
# rates are cited priors, a disk's own rate replaces them where a row states it (up to the
# page-faulting loader's ceiling, a local disk or a network file system alike); the hub and s3
# rates, the page cache's rate, that ceiling and the loaders' costs are fitted here.
LOAD_PRIORS = {"network": 300e6, "local-disk": 4e9}
LOAD_FALLBACK = {"hub": 100e6, "s3": 300e6}  # a kind with no fit-set row left
LOADER_FALLBACK = (0.0, 0.0)
# The grids the safetensors loader's fit searches (fixed_s, s_per_gb, page cache and disk ceiling,
# each per rank).
FIXED_GRID = [f * 0.25 for f in range(0, 25)]
PER_GB_GRID = [c * 0.01 for c in range(0, 41)]
PAGE_CACHE_GRID = [5e9, 10e9, 20e9, 30e9, 50e9, 100e9]
CEILING_GRID = [2e9, 3e9, 4e9, 6e9, 8e9, 12e9, 16e9, 1e12]


def load_points(rows, estimate):
    """The weight-load rows of `rows` as fit points; `estimate(row)` is burst's JSON for it."""
    pts = []
    for r in rows:
        if r["category"] not in LOAD:
            continue
        out = estimate(r)
        kind = {"volume": "network"}.get(r["method"] or "hub", r["method"] or "hub")
        loader = r.get("loader") or ("pytorch" if r["engine"] == "pytorch" else "safetensors")
        pts.append({"row": r, "source": r["source"], "kind": kind, "loader": loader,
                    "bytes": out["memory_gib"]["weights"] * 2**30,
                    "disk": float(r.get("disk_read_mbps") or 0) * 1e6,
                    "gpus": int(r["gpus"] or 1), "download": r["metric"] == "download_seconds",
                    "engine": r["engine"],
                    "tensors": out["weight_load_s"].get("expert_tensors", 0),
                    "meas": float(r["measured"])})
    return pts


# huggingface_hub's HTTP downloader (before 0.32.0, or Xet off): up to 8 files at once, one
# stream a file; files of 5 GB (safetensors shards) or up to 50 GB (GGUF, llama.cpp).
# src/cost/weight_load.cpp, hub_http_download_bps.
HUB_PARALLEL_FILES, HUB_SHARD_BYTES, HUB_GGUF_FILE_BYTES = 8, 5e9, 50e9
# A parallel hub download (Xet, huggingface_hub's default since 0.32.0; hf_transfer): a fixed cost
# plus the bytes at one rate (bench/README.md, "Hub downloads through Xet: the form"), the fixed
# cost on the loaders' grid, the rate on a log grid.
HUB_RATE_GRID = [10 ** (6 + k / 40) for k in range(0, 160)]


def hub_busiest_bytes(p):
    """The bytes the busiest download stream carries: one file, or its share of them all."""
    f = min(p["bytes"], HUB_GGUF_FILE_BYTES if p["engine"] == "llama.cpp" else HUB_SHARD_BYTES)
    at_once = min(math.ceil(p["bytes"] / f), HUB_PARALLEL_FILES)
    return max(f, p["bytes"] / at_once)


def lrate(p, rates):
    """src/cost/weight_load.cpp, storage_read_bps(kind, disk_bps, gpus); a streaming loader
    (src/cost/streaming_loader.cpp, streaming_read_bps) reads a disk or volume at its own rate, an
    object store at its fitted streaming rate. The GPUs loading at once each read their own share:
    the loader's disk ceiling and the page cache's rates are per rank."""
    g = p["gpus"]
    if p["loader"] == "streaming":
        if p["kind"] in ("local-disk", "network"):
            return p["disk"] or rates[p["kind"]]
        if p["kind"] == "s3":
            return rates["s3-streaming"]
        if p["kind"] == "page-cache":
            return rates["page-cache-streaming"] * g
        return rates[p["kind"]]
    if p["kind"] == "local-disk":
        return min(p["disk"] or rates["local-disk"], rates["ceiling"] * g)
    if p["kind"] == "network":
        return min(p["disk"], rates["ceiling"] * g) if p["disk"] else rates["network"]
    if p["kind"] == "page-cache":
        return rates["page-cache"] * g
    return rates[p["kind"]]


def hub_rate(p, rates):
    """src/cost/weight_load.cpp: hub_http_download_bps for loader http, else hub_download_bps (a
    parallel download: the fixed cost plus the bytes at its rate, never slower than the one-stream
    downloader for the same checkpoint)."""
    http = rates["hub"] * p["bytes"] / hub_busiest_bytes(p)
    if p["loader"] == "http":
        return http
    return max(http, p["bytes"] / (rates["hub-fixed"] + p["bytes"] / rates["hub-parallel"]))


# A mixture of experts' routed-expert tensors (src/cost/checkpoint_tensors.cpp): the grid
# bench/moe_load_forms.py fitted a cost a tensor on, a form tried and not kept (bench/README.md,
# "A mixture of experts' checkpoint, tensor by tensor"); the model and this mirror price none.
EXPERT_T_GRID = [k * 0.05e-3 for k in range(0, 1001)]


def expert_charged(p):
    """The default loader walks the expert tensors; a streaming loader reads the file in chunks,
    and a download alone loads nothing."""
    return bool(p.get("tensors")) and not p["download"] and p["loader"] != "streaming"


def lmirror(p, fitted):
    rates, loaders = fitted
    read = p["bytes"] / (hub_rate(p, rates) if p["kind"] == "hub" else lrate(p, rates))
    if p["download"]:
        return read
    fixed, per_gb = loaders["safetensors" if p["loader"] == "http" else p["loader"]]
    return read + fixed + per_gb * p["bytes"] / 1e9 / p["gpus"]


def load_fit(pts):
    """((kind -> bytes/s), (loader -> (fixed_s, s_per_gb))): the safetensors loader's two numbers,
    the page cache's rate and the local disk's ceiling (each per rank) by least absolute log error
    on its rows read from a cited-prior storage or the page cache; pytorch's seconds per GB on its
    rows with safetensors' fixed cost; then each fitted kind's rate, the median of
    bytes / (measured - the loader's share) over its rows (one rank's share for the page cache)."""
    rates = dict(LOAD_PRIORS, **{"page-cache": PAGE_CACHE_GRID[-1], "ceiling": CEILING_GRID[-1]})
    loaders = {}

    def cost(ps, fixed, per_gb, r):
        return sum(abs(math.log(lmirror(p, (r, {p["loader"]: (fixed, per_gb)})) / p["meas"]))
                   for p in ps)

    known = ("network", "local-disk", "page-cache")
    st = [p for p in pts if p["loader"] == "safetensors" and not p["download"] and p["kind"] in known]
    if st:
        best = None
        for pc in PAGE_CACHE_GRID:
            for ceil in CEILING_GRID:
                r = dict(rates, **{"page-cache": pc, "ceiling": ceil})
                for f in FIXED_GRID:
                    for c in PER_GB_GRID:
                        e = cost(st, f, c, r)
                        if best is None or e < best[0] - 1e-12:
                            best = (e, f, c, pc, ceil)
        _, fixed, per_gb, rates["page-cache"], rates["ceiling"] = best
        loaders["safetensors"] = (fixed, per_gb)
    else:
        loaders["safetensors"] = LOADER_FALLBACK
    pt = [p for p in pts if p["loader"] == "pytorch" and p["kind"] in known]
    fixed = loaders["safetensors"][0]
    if pt:
        _, per_gb = min((cost(pt, fixed, c * 0.1, rates), c * 0.1) for c in range(0, 1001))
        loaders["pytorch"] = (fixed, per_gb)
    else:
        loaders["pytorch"] = loaders["safetensors"]
    # The streaming loaders: their fixed cost and seconds per GB on their rows read from a disk or
    # volume (its stated rate or the prior), then the object store's and the page cache's rates
    # they reach, each the median of bytes / (measured - the loader's share) over their rows of
    # that kind; with none, the default loader's rate of that kind.
    sm = [p for p in pts if p["loader"] == "streaming" and p["kind"] in ("network", "local-disk")]
    if sm:
        loaders["streaming"] = min(
            (cost(sm, f * 0.05, c * 0.005, rates), f * 0.05, c * 0.005)
            for f in range(0, 41) for c in range(0, 41))[1:]
    else:
        loaders["streaming"] = LOADER_FALLBACK
    # The hub's one stream a file (loader http): each row's busiest stream over its time.
    vals = [hub_busiest_bytes(p) / p["meas"] for p in pts
            if p["kind"] == "hub" and p["loader"] == "http" and p["download"]]
    rates["hub"] = statistics.median(vals) if vals else LOAD_FALLBACK["hub"]
    # A parallel hub download (every other loader): its fixed cost and rate by least absolute log
    # error over its download rows, each never slower than the one-stream downloader.
    par = [p for p in pts if p["kind"] == "hub" and p["loader"] != "http" and p["download"]]
    rates["hub-fixed"], rates["hub-parallel"] = 0.0, rates["hub"] * HUB_PARALLEL_FILES
    if par:
        rates["hub-fixed"], rates["hub-parallel"] = min(
            (sum(abs(math.log(p["bytes"] / hub_rate(p, dict(rates, **{
                "hub-fixed": f, "hub-parallel": r})) / p["meas"])) for p in par), f, r)
            for f in FIXED_GRID for r in HUB_RATE_GRID)[1:]
    for kind in ("s3", "s3-streaming", "page-cache-streaming"):
        streaming = kind.endswith("-streaming")
        base = kind[:-len("-streaming")] if streaming else kind
        vals = []
        for p in pts:
            if p["kind"] != base or (p["loader"] == "streaming") != streaming:
                continue
            init = 0 if p["download"] else (loaders[p["loader"]][0] + loaders[p["loader"]][1] *
                                             p["bytes"] / 1e9 / p["gpus"])
            if p["meas"] > init:
                # One rank's rate from the page cache: its share.
                busy = p["bytes"] / p["gpus"] if kind == "page-cache-streaming" else p["bytes"]
                vals.append(busy / (p["meas"] - init))
        # Without a streaming row of the kind: the default loader's rate of it.
        fallback = rates[base] if streaming else LOAD_FALLBACK[kind]
        rates[kind] = statistics.median(vals) if vals else fallback
    return rates, loaders
