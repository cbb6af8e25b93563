#!/usr/bin/env python3
"""Generate include/hwpc/metrics/mdapi/ from Intel metrics-discovery's generated set definitions.

Input (read, never copied): <data>/md_metric_sets_<PLATFORM>.cpp, metrics-discovery's codegen
output (MIT, LICENSE.md beside them). Each metric there is an AddMetric( "Symbol", ..., METRIC_TYPE_*,
RESULT_*, ... ) call followed by setters of its equations: the snapshot report read equation (one
OA report's counters; metrics-discovery takes the delta of every read element, then applies the
operators), the delta function, the normalization equation and the max equation. They are kept
as data, equation strings verbatim: metrics/mdapi.hpp translates them into hwpc formulas.

Outputs: one header per platform (<out>/tgl_gt2.hpp, ...) and <out>/index.hpp. Python 3 standard
library only; the output depends on the inputs alone, so regenerating and diffing detects drift.

    python3 scripts/gen/mdapi_tables.py [--data ../shared/data/intel-mdapi] \
        [--out include/hwpc/metrics/mdapi]
"""

import argparse
import hashlib
import os
import re
import sys

# File stem -> (header stem, the metric files' chipset attribute, metrics-discovery release).
PLATFORMS = [
    ("HSW", "hsw", "HSW", "1.14.180"),
    ("SKL_GT2", "skl_gt2", "SKLGT2", "1.14.180"),
    ("TGL_GT2", "tgl_gt2", "TGLGT2", "current"),
    ("LNL", "lnl", "LNL", "current"),
    ("BMG", "bmg", "BMG", "current"),
    ("PTL", "ptl", "PTL", "current"),
]
RESULTS = {"RESULT_UINT32": "uint32", "RESULT_UINT64": "uint64", "RESULT_FLOAT": "float32",
           "RESULT_BOOL": "bool32"}
SETTERS = {
    "SetSnapshotReportReadEquation": "read",
    "SetSnapshotReportDeltaFunction": "delta",
    "SetNormalizationEquation": "normalization",
    "SetMaxValueEquation": "max",
}


class InputError(Exception):
    pass


def cxx_string(s):
    if not re.fullmatch(r"[\x20-\x7e]*", s):
        raise InputError(f"unexpected characters in {s!r}")
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def split_args(text):
    """Top-level comma-separated arguments of a call's text (string literals kept whole)."""
    args, depth, cur, i = [], 0, [], 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    args.append("".join(cur).strip())
    return args


def call_text(s, start):
    """The text between the parenthesis at s[start] and its match."""
    depth, i = 0, start
    while True:
        ch = s[i]
        if ch == '"':
            i += 1
            while s[i] != '"':
                i += 2 if s[i] == "\\" else 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return s[start + 1:i]
        i += 1


def unquote(a):
    if a == "nullptr" or a == "availabilityEquation":
        return None
    m = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', a)
    if not m:
        raise InputError(f"not a string literal: {a!r}")
    return m.group(1)


TOKEN = re.compile(
    r'namespace MetricsDiscoveryInternal::MetricSets_\w+?_(?P<group>OA|OAM\d*|OAMG|PipelineStatistics|MMIO_Regs)\b'
    r'|TCompletionCode C(?P<set>\w+)MetricSet::Initialize\(\)'
    r'|availabilityEquation\s*=\s*(?P<avail>"(?:[^"\\]|\\.)*"|nullptr)\s*;'
    r'|(?P<add>AddMetric)\('
    r'|metric->(?P<setter>Set\w+)\(\s*"(?P<arg>(?:[^"\\]|\\.)*)"\s*\)')


def read_platform(path):
    with open(path, encoding="utf-8") as f:
        s = f.read()
    metrics = []
    group = set_name = None
    avail_var = None
    current = None
    for m in TOKEN.finditer(s):
        if m.group("group"):
            group = m.group("group")
        elif m.group("set"):
            set_name = m.group("set")
            current = None
        elif m.group("avail"):
            avail_var = unquote(m.group("avail"))
        elif m.group("add"):
            args = split_args(call_text(s, m.end() - 1))
            if len(args) < 14:
                raise InputError(f"{path}: AddMetric with {len(args)} arguments")
            result = RESULTS.get(args[8])
            if result is None:
                raise InputError(f"{path}: unknown result type {args[8]}")
            avail = avail_var if args[13] == "availabilityEquation" else unquote(args[13])
            current = {
                "group": group, "set": set_name, "symbol": unquote(args[0]), "result": result,
                "semantic": args[7].removeprefix("METRIC_TYPE_").lower(),
                "availability": avail or "",
                "read": "", "delta": "", "normalization": "", "max": "",
            }
            metrics.append(current)
        elif m.group("setter") in SETTERS and current is not None:
            current[SETTERS[m.group("setter")]] = m.group("arg")
    return metrics, s


BANNER = """// GENERATED by scripts/gen/mdapi_tables.py; do not edit (scripts/check-generated.sh
// regenerates and compares).
"""


def write_platform(out, stem, file_stem, chipset, release, metrics, digest):
    lines = [BANNER.rstrip("\n"),
             f"// Intel metrics-discovery's definitions for {file_stem} (release {release}): one",
             "// row per metric, its equations verbatim (metrics/mdapi_table.hpp says what each is).",
             "// Source: metrics-discovery (MIT, LICENSE.md), read from",
             f"// ../shared/data/intel-mdapi/md_metric_sets_{file_stem}.cpp (sha256 {digest[:16]})",
             "#pragma once", "", "// clang-format off", "",
             '#include "hwpc/metrics/mdapi_table.hpp"', "",
             "namespace hwpc::metrics::mdapi {", "",
             f"inline constexpr metric_def {stem}_metrics[] = {{"]
    for m in metrics:
        fields = [m["group"], m["set"], m["symbol"]]
        lines.append(
            "    {" + ", ".join(cxx_string(x) for x in fields) +
            f", result_type::{m['result']}, " +
            ", ".join(cxx_string(m[k]) for k in ("read", "delta", "normalization", "max",
                                                 "availability")) + "},")
    lines += ["};", "", f"inline constexpr platform_def {stem}{{{cxx_string(stem)}, "
              f"{cxx_string(chipset)}, {cxx_string(release)}, {stem}_metrics}};", "",
              "}  // namespace hwpc::metrics::mdapi", "", "// clang-format on", ""]
    with open(os.path.join(out, stem + ".hpp"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="../shared/data/intel-mdapi")
    ap.add_argument("--out", default="include/hwpc/metrics/mdapi")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    stems = []
    try:
        for file_stem, stem, chipset, release in PLATFORMS:
            path = os.path.join(a.data, f"md_metric_sets_{file_stem}.cpp")
            metrics, text = read_platform(path)
            if not metrics:
                raise InputError(f"{path}: no metrics")
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            write_platform(a.out, stem, file_stem, chipset, release, metrics, digest)
            stems.append(stem)
    except (InputError, OSError) as e:
        print(f"mdapi_tables: {e}", file=sys.stderr)
        return 1
    lines = [BANNER.rstrip("\n"),
             "// Every platform of metrics-discovery's definitions, for lookup by chipset.",
             "#pragma once", "", "// clang-format off", "", "#include <array>", "",
             '#include "hwpc/metrics/mdapi_table.hpp"']
    lines += [f'#include "hwpc/metrics/mdapi/{s}.hpp"' for s in stems]
    lines += ["", "namespace hwpc::metrics::mdapi {", "",
              "inline constexpr std::array<const platform_def*, " + str(len(stems)) +
              "> platforms{" + ", ".join("&" + s for s in stems) + "};", "",
              "}  // namespace hwpc::metrics::mdapi", "", "// clang-format on", ""]
    with open(os.path.join(a.out, "index.hpp"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
