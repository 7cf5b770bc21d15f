"""A mixture of experts' checkpoint, tensor by tensor: the rule's three forms compared on the fit
set alone (bench/README.md, "A mixture of experts' checkpoint, tensor by tensor: the rule").
Reads measurements.csv only, never held_out.csv.

    python3 bench/moe_load_forms.py [--burst build/burst] [-v]

A: the weight-load model as it stands.
B: A, plus t_e x N_e on every load by the default loader (not a streaming loader, not a
   download alone), N_e = the row's routed-expert tensors (`burst estimate --json`'s
   weight_load_s.expert_tensors: 0 for a dense or fused-expert model).
C: B, but not charged on a load from the page cache.

Each form's constant t_e is fitted after the kept constants (which it does not move), by least
absolute log error over the fit set's weight-load rows, on a grid of 0-50 ms. Leave one source
out refits every weight-load constant without the source (validate_weight_load.load_fit, as
validate_cost_model does) and then t_e. The rows of every other category keep
validate_cost_model's leave-one-source-out predictions, so the all-rows line is the report's.
Prints per form: t_e, the weight-load fit and leave-one-source-out medians, and the all-rows
leave-one-source-out median; with -v every weight-load row with N_e > 0."""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_cost_model as vc  # noqa: E402
from validate_rows import category, error, median_abs  # noqa: E402
# The model and this mirror price no expert tensor (B was not kept): the binary's predictions and
# lmirror are form A's.
from validate_weight_load import EXPERT_T_GRID, expert_charged, load_fit, load_points  # noqa
from validate_weight_load import lmirror  # noqa: E402


def charged(form, p):
    if form == "A" or not expert_charged(p):
        return False
    return not (form == "C" and p["kind"] == "page-cache")


def fit_t(form, pts, fitted):
    use = [p for p in pts if charged(form, p)]
    if not use:
        return 0.0
    return min((sum(abs(math.log((lmirror(p, fitted) + t * p["tensors"]) / p["meas"]))
                    for p in use), t) for t in EXPERT_T_GRID)[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--burst", default=os.path.join(vc.ROOT, "build", "burst"))
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    rows = vc.load(vc.CSV)
    est = {}

    def estimate(r):
        if r["id"] not in est:
            est[r["id"]] = vc.burst(a.burst, vc.args_of(r))
        return est[r["id"]]

    loso = vc.loso_predictions(a.burst, rows)
    pts = load_points(rows, estimate)
    full = load_fit(pts)
    rest = {s: load_fit([p for p in pts if p["source"] != s]) for s in {p["source"] for p in pts}}
    others = [error(r, loso.get(r["id"], vc.predict(a.burst, r))) for r in rows
              if category(r) != "weight load"]
    for form in ("A", "B", "C"):
        t_full = fit_t(form, pts, full)
        fit_e, loso_e, shown = [], [], []
        for p in pts:
            pred = vc.predict(a.burst, p["row"])
            extra = t_full * p["tensors"] if charged(form, p) else 0.0
            fit_e.append(error(p["row"], pred + extra))
            src = p["source"]
            t_rest = fit_t(form, [q for q in pts if q["source"] != src], rest[src])
            base = pred * lmirror(p, rest[src]) / lmirror(p, full)
            lp = base + (t_rest * p["tensors"] if charged(form, p) else 0.0)
            loso_e.append(error(p["row"], lp))
            if p["tensors"]:
                shown.append((p["row"]["id"], p["kind"], p["tensors"], p["meas"], pred + extra,
                              lp))
        f, nf = median_abs(fit_e)
        lo, nl = median_abs(loso_e)
        al, na = median_abs(loso_e + others)
        print(f"form {form}: t_e {t_full * 1e3:.2f} ms | weight load fit {f:.1f}% ({nf}), "
              f"left one source out {lo:.1f}% ({nl}) | all rows left out {al:.1f}% ({na})")
        if a.v:
            for rid, kind, n, meas, pred, lp in shown:
                print(f"    {rid:>5} {kind:<10} N_e {n:>6} measured {meas:8.1f} s  fit "
                      f"{pred:8.1f} s ({(pred / meas - 1) * 100:+.0f}%)  left out {lp:8.1f} s "
                      f"({(lp / meas - 1) * 100:+.0f}%)")


if __name__ == "__main__":
    main()
