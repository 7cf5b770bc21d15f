"""The batched-decode forms compared on the fit set alone (bench/README.md, "Batched decode, the
form: the rule"): candidate 2, a per-sequence cost of a decode step per engine, against the model
as it stands. Reads measurements.csv only, never held_out.csv.

    python3 bench/decode_forms.py [--burst build/burst]

The form: a step of B sequences takes t_seq x (B - 1) longer than the roofline says (the first
sequence's share is already in the fitted t0), so a batch's rate R becomes
1 / (1 / R + t_seq x (B - 1) / B) tokens a second. t_seq is fitted per engine on that engine's
batched fit rows (concurrency > 1, any GPU count) by least absolute log error over a grid of
0-2 ms in 1 us steps; leave one source out refits it without the source and applies it to the
source's leave-one-source-out predictions. Prints the fitted t_seq per engine, then the fit and
leave-one-source-out medians over all fit rows and over batched serving, with and without it."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_cost_model as v  # noqa: E402

BURST = sys.argv[sys.argv.index("--burst") + 1] if "--burst" in sys.argv else "build/burst"
GRID = [i * 1e-6 for i in range(0, 2001)]


def batched(r):
    return r["category"] in v.THROUGHPUT and int(r["concurrency"] or 1) > 1 and r["engine"]


def with_seq(rate, b, t):
    return 1 / (1 / rate + t * (b - 1) / b)


def fit_t(rows, pred):
    """engine -> t_seq over `rows` (least absolute log error)."""
    out = {}
    for eng in sorted({r["engine"] for r in rows}):
        pts = [(pred[r["id"]], int(r["concurrency"]), float(r["measured"])) for r in rows
               if r["engine"] == eng and pred.get(r["id"])]
        if pts:
            out[eng] = min(GRID, key=lambda t: sum(abs(math.log(with_seq(p, b, t) / m))
                                                   for p, b, m in pts))
    return out


def medians(rows, pred):
    every = v.median_abs([v.error(r, pred.get(r["id"])) for r in rows])
    serving = v.median_abs([v.error(r, pred.get(r["id"])) for r in rows
                            if v.category(r) == "batched serving"])
    return every, serving


def main():
    rows = v.load(v.CSV)
    pred = {r["id"]: v.predict(BURST, r) for r in rows}
    loso = v.loso_predictions(BURST, rows)
    loso = {r["id"]: loso.get(r["id"], pred[r["id"]]) for r in rows}
    bat = [r for r in rows if batched(r)]
    full = fit_t(bat, pred)
    print("t_seq per engine, all batched fit rows:",
          {e: f"{t * 1e6:.0f} us" for e, t in full.items()},
          "rows:", {e: sum(1 for r in bat if r["engine"] == e) for e in full})
    fit_new = dict(pred)
    for r in bat:
        if pred[r["id"]] and r["engine"] in full:
            fit_new[r["id"]] = with_seq(pred[r["id"]], int(r["concurrency"]), full[r["engine"]])
    loso_new = dict(loso)
    for src in sorted({r["source"] for r in bat}):
        rest = fit_t([r for r in bat if r["source"] != src], pred)
        for r in bat:
            if r["source"] == src and loso[r["id"]]:
                loso_new[r["id"]] = with_seq(loso[r["id"]], int(r["concurrency"]),
                                             rest.get(r["engine"], 0.0))
    for name, p_fit, p_loso in (("as it stands", pred, loso),
                                ("with t_seq", fit_new, loso_new)):
        (fa, n), (fs, ns) = medians(rows, p_fit)
        (la, _), (ls, _) = medians(rows, p_loso)
        print(f"{name:13s}  all: fit {fa:.1f}% LOSO {la:.1f}% ({n})   "
              f"batched serving: fit {fs:.1f}% LOSO {ls:.1f}% ({ns})")
    for r in bat:
        print(f"  {r['id']:>4} {r['engine']:9s} B {r['concurrency']:>3}  "
              f"{v.error(r, pred[r['id']]) * 100:+7.1f}% -> "
              f"{v.error(r, fit_new[r['id']]) * 100:+7.1f}%  LOSO "
              f"{v.error(r, loso[r['id']]) * 100:+7.1f}% -> "
              f"{v.error(r, loso_new[r['id']]) * 100:+7.1f}%")


if __name__ == "__main__":
    main()
