#!/usr/bin/env python3
"""Compares two directories written by scripts/decode-golden.sh.

Every output must be byte-identical except for the changes the row contract
(docs/captures.md, "Rows") makes on purpose:
  - CSV/JSON rows gain an `offset` column/key;
  - `report` of i915-stream and recording inputs becomes the report index
    (raw inputs keep theirs: it was the report index already);
  - `ctx_id` becomes the earlier report's CTX_ID, empty/null when not valid;
  - JSON arrays may end with an {"accounting": ...} element, summary JSON
    objects with an "accounting" key, stderr with one accounting line;
  - JSON metric values that are NaN or infinite become null.
Anything else that differs is printed; the exit status is 1 then.
"""
import csv
import io
import json
import os
import sys

INTENDED_CSV = {"offset", "ctx_id"}
INTENDED_JSON = {"offset", "ctx_id", "accounting"}


def load_json(text):
    # Old outputs may hold bare inf/nan (invalid JSON): read them as null.
    for bad in ("-nan", "nan", "-inf", "inf"):
        text = text.replace(": " + bad + ",", ": null,").replace(": " + bad + "}", ": null}")
    return json.loads(text)


def csv_rows(text, drop):
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return rows
    keep = [i for i, n in enumerate(rows[0]) if n not in drop]
    return [[r[i] if i < len(r) else None for i in keep] for r in rows]


def strip_json(v, drop):
    if isinstance(v, list):
        return [strip_json(x, drop) for x in v if not (isinstance(x, dict) and "accounting" in x)]
    if isinstance(v, dict):
        return {k: (None if isinstance(x, float) and x != x else x)
                for k, x in v.items() if k not in drop}
    return v


def compare(name, a, b):
    if a == b:
        return None
    raw = "-raw." in name
    if name.endswith(".err"):
        keep = lambda t: [l for l in t.splitlines() if "records read =" not in l]
        return None if keep(a) == keep(b) else "stderr differs"
    if name.endswith(".truth.csv") or name.endswith(".perfetto.json") or ".summary.csv" in name:
        return "differs (must be byte-identical)"
    drop_csv = INTENDED_CSV | (set() if raw else {"report"})
    drop_json = INTENDED_JSON | (set() if raw else {"report"})
    if name.endswith(".csv"):
        return None if csv_rows(a, drop_csv) == csv_rows(b, drop_csv) else "CSV values differ"
    if name.endswith(".json"):
        try:
            ja, jb = load_json(a), load_json(b)
        except ValueError as e:
            return "not JSON: %s" % e
        return None if strip_json(ja, drop_json) == strip_json(jb, drop_json) else "JSON values differ"
    return "differs"


def main():
    old, new = sys.argv[1], sys.argv[2]
    bad = 0
    names = sorted(n for n in os.listdir(old) if os.path.isfile(os.path.join(old, n)))
    for n in names:
        p = os.path.join(new, n)
        if not os.path.exists(p):
            print("missing:", n)
            bad += 1
            continue
        a = open(os.path.join(old, n), encoding="utf-8", errors="replace").read()
        b = open(p, encoding="utf-8", errors="replace").read()
        why = compare(n, a, b)
        if why:
            print("%s: %s" % (n, why))
            bad += 1
    old_caps = sorted(os.listdir(os.path.join(old, "captures")))
    for c in old_caps:
        x = open(os.path.join(old, "captures", c), "rb").read()
        y = open(os.path.join(new, "captures", c), "rb").read()
        if x != y:
            print("capture differs:", c)
            bad += 1
    print("%d outputs compared, %d captures, %d unexpected differences" % (len(names), len(old_caps), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
