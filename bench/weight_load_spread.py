#!/usr/bin/env python3
"""How far the validation's weight-load rows disagree with themselves: rows whose `burst estimate`
arguments are identical get one prediction from any model of burst's inputs, so where their
measurements differ by a factor f, one of them is at least (f - 1) / (f + 1) off whatever the
model says (the prediction that splits the pair evenly). Also: the leave-one-source-out and
held-out medians with and without the weight-load rows, and how close a rate and a fixed cost
fitted per (read method, loader, cold or warm) group on each set's own rows come to them (the
best that form does in sample; it tunes nothing burst uses).

    python3 bench/weight_load_spread.py --burst build/burst
"""
import argparse
import csv
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_cost_model as v  # noqa: E402
from validate_rows import category, error  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def rows_of(name):
    return list(csv.DictReader(open(os.path.join(HERE, "validation", name))))


def spread(rows):
    groups = {}
    for r in rows:
        if category(r) == "weight load":
            groups.setdefault(tuple(v.args_of(r)), []).append((r["id"], float(r["measured"])))
    shared = [g for g in groups.values() if len(g) > 1]
    wide = [g for g in shared if max(m for _, m in g) / min(m for _, m in g) > 1.5]
    return sum(len(g) for g in groups.values()), shared, wide


def own_fit(rows, binary):
    """Median abs error of seconds = a + GiB / rate, a and rate fitted per (method, loader,
    cold or warm) group on the rows themselves (least absolute log error on a grid), GiB the
    weights burst counts for the row's model."""
    groups = {}
    for r in rows:
        if category(r) == "weight load":
            gib = v.burst(binary, v.args_of(r))["memory_gib"]["weights"]
            key = (r["method"], r["loader"], r["category"])
            groups.setdefault(key, []).append((gib, float(r["measured"])))
    fixed = [0, 0.5, 1, 2, 3, 5, 8, 12, 20, 30, 50]
    rates = [0.05 * 1.15 ** i for i in range(60)]  # GiB/s, 0.05 to about 190
    errs = []
    for pts in groups.values():
        best = min(((sum(abs(math.log((a + g / q) / m)) for g, m in pts), a, q)
                    for a in fixed for q in rates))
        errs += [abs((best[1] + g / best[2]) / m - 1) for g, m in pts]
    return errs, len(groups)


def median_pct(errs):
    return f"{statistics.median(errs) * 100:.1f}% ({len(errs)})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--burst", required=True)
    a = ap.parse_args()
    for name in ("measurements.csv", "held_out.csv"):
        n, shared, wide = spread(rows_of(name))
        print(f"{name}: {n} weight-load rows; {sum(len(g) for g in shared)} share their inputs "
              f"with another row ({len(shared)} groups); in {len(wide)} of those groups the "
              f"measurements differ by more than 1.5x:")
        for g in wide:
            f = max(m for _, m in g) / min(m for _, m in g)
            print(f"  {', '.join(f'{i} {m:g} s' for i, m in g)}: {f:.1f}x, so one row is at "
                  f"least {(f - 1) / (f + 1) * 100:.0f}% off any prediction")
    fit = rows_of("measurements.csv")
    loso = v.loso_predictions(a.burst, fit)
    every, rest = [], []
    for r in fit:
        e = error(r, loso.get(r["id"], v.predict(a.burst, r)))
        if e is None:
            continue
        every.append(abs(e))
        if category(r) != "weight load":
            rest.append(abs(e))
    print(f"leave one source out: all fit rows {median_pct(every)}; without weight load "
          f"{median_pct(rest)}")
    every, rest = [], []
    for r in rows_of("held_out.csv"):
        e = error(r, v.predict(a.burst, r))
        if e is None:
            continue
        every.append(abs(e))
        if category(r) != "weight load":
            rest.append(abs(e))
    print(f"held out: all rows {median_pct(every)}; without weight load {median_pct(rest)}")
    for name in ("measurements.csv", "held_out.csv"):
        errs, n = own_fit(rows_of(name), a.burst)
        print(f"{name}: a rate and a fixed cost per group fitted on its own weight-load rows "
              f"({n} groups): {median_pct(errs)}")


if __name__ == "__main__":
    main()
