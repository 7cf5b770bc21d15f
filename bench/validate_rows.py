"""The validation's rows as a report sees them (bench/validate_cost_model.py): each row's error
against a prediction, the reporting categories, and the table's cells. No I/O."""
import re
import statistics

from validate_weight_load import LOAD

MEMORY = ("memory_infer", "memory_train", "kv_tokens", "memory_diffusion")


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


def pct(value, rows):
    return f"{value:.1f}% ({rows})" if rows else "- (0)"


def short_source(url):
    m = re.match(r"https?://(?:www\.)?github\.com/([^/]+/[^/]+)(/pull/(\d+))?", url)
    if m:
        return m.group(1) + (f" #{m.group(3)}" if m.group(3) else "")
    return re.sub(r"^https?://(www\.)?", "", url).split("/")[0]


CATEGORIES = ("decode, batch 1", "decode, long context", "prefill", "batched serving",
              "multi-GPU", "memory", "max context", "weight load", "diffusion, image",
              "diffusion, audio", "diffusion, video")


def category(row):
    """The reporting category of a row (bench/README.md, "Cost-model validation")."""
    cat = row["category"]
    if cat in MEMORY:
        return "memory"
    if cat in LOAD:
        return "weight load"
    if cat == "max_context":
        return "max context"
    if cat == "prefill":
        return "prefill"
    if cat.startswith("diffusion"):
        return {"diffusion_audio": "diffusion, audio",
                "diffusion_video": "diffusion, video"}.get(cat, "diffusion, image")
    if row["gpus"] not in ("", "1"):
        return "multi-GPU"
    if cat == "decode_b1_long":
        return "decode, long context"
    return "batched serving" if int(row["concurrency"] or 1) > 1 else "decode, batch 1"


def setup_of(r):
    return " ".join(x for x in [
        r["precision"] or "", r["engine"] or "", r["method"] or "",
        f"x{r['gpus']}" if r["gpus"] not in ("", "1") else "",
        f"c={r['concurrency']}" if r["concurrency"] not in ("", "1") else "",
        f"ctx {r['context']}" if r["context"] else "",
        f"batch {r['batch']}" if r["batch"] else ""] if x)
