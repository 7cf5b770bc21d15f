#!/usr/bin/python3
"""Generates tests/data/cron_reference.tsv: next fire times from an independent cron implementation.

Reference: python3-croniter 1.3.5 from Debian 12 (`apt-get install python3-croniter`). Run:
    /usr/bin/python3 tools/gen_cron_reference.py > tests/data/cron_reference.tsv

croniter and cronie disagree in one place: when day-of-month and day-of-week are both restricted
and one of them is written with a leading `*` (e.g. `*/2`), cronie treats that field as
unrestricted (AND), croniter ORs them. Such expressions are not generated here; tests/unit/
cron_test.cpp pins cronie's behaviour for them by hand. All times are UTC.

Columns: expression, start (ISO, UTC), then the next three fire times strictly after start.
"""
import datetime
import random
import sys

from croniter import croniter

MON = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
DOW = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]


def field(rng, lo, hi, names=None):
    kind = rng.choice(["star", "star", "num", "range", "step", "rangestep", "list", "name"])
    if kind == "star":
        return "*"
    if kind == "num":
        return str(rng.randint(lo, hi))
    if kind == "range":
        a = rng.randint(lo, hi)
        b = rng.randint(a, hi)
        return f"{a}-{b}"
    if kind == "step":
        return f"*/{rng.randint(2, max(2, (hi - lo) // 2))}"
    if kind == "rangestep":
        a = rng.randint(lo, hi)
        b = rng.randint(a, hi)
        return f"{a}-{b}/{rng.randint(1, 5)}"
    if kind == "list":
        vals = sorted(set(rng.randint(lo, hi) for _ in range(rng.randint(2, 4))))
        return ",".join(str(v) for v in vals)
    if names:
        a = rng.randint(0, len(names) - 1)
        if rng.random() < 0.5:
            return names[a]
        b = rng.randint(a, len(names) - 1)
        return f"{names[a]}-{names[b]}"
    return str(rng.randint(lo, hi))


def divergent(dom, dow):
    both_restricted = dom != "*" and dow != "*"
    return both_restricted and (dom.startswith("*") or dow.startswith("*"))


def main():
    rng = random.Random(20261122)
    exprs = ["@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually",
             "0 0 29 2 *", "0 12 31 * *", "30 2 * * 7", "0 0 1 * MON", "15 10 13 * FRI",
             "0 0 31 4,6,9,11 *", "59 23 31 12 *"]
    while len(exprs) < 240:
        minute = field(rng, 0, 59)
        hour = field(rng, 0, 23)
        dom = field(rng, 1, 31)
        month = field(rng, 1, 12, MON)
        dow = field(rng, 0, 6, DOW)
        if divergent(dom, dow):
            continue
        expr = f"{minute} {hour} {dom} {month} {dow}"
        if expr not in exprs:
            exprs.append(expr)
    starts = [datetime.datetime(2026, 11, 22, 8, 30, 0), datetime.datetime(2028, 2, 28, 23, 59, 0)]
    for expr in exprs:
        for start in starts:
            try:
                it = croniter(expr, start)
                fires = [it.get_next(datetime.datetime).strftime("%Y-%m-%dT%H:%M")
                         for _ in range(3)]
            except Exception as e:  # croniter gives up on dates far away; leave those out
                print(f"skipped {expr!r} from {start}: {e}", file=sys.stderr)
                continue
            print("\t".join([expr, start.strftime("%Y-%m-%dT%H:%M")] + fires))


if __name__ == "__main__":
    main()
