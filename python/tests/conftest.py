"""Shared helpers of the hwpc package's tests.

Every decode is checked against the `hwpc` tool (HWPC_TOOL, set by ctest;
else build/examples/hwpc) on captures its emulators make; the metric files
come from ../shared (HWPC_SHARED_DIR), and the tests that need them skip
with a message when it is absent.
"""

import csv
import io
import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def _tool_path():
    t = os.environ.get("HWPC_TOOL") or str(REPO / "build" / "examples" / "hwpc")
    return t if os.path.exists(t) else None


TOOL = _tool_path()
SHARED = Path(os.environ.get("HWPC_SHARED_DIR", REPO.parent / "shared"))

if TOOL is None:
    pytest.skip("the hwpc tool is not built (set HWPC_TOOL): the tests compare with it",
                allow_module_level=True)


def shared_file(*parts):
    p = SHARED.joinpath("data", *parts)
    if not p.exists():
        pytest.skip("%s is absent (../shared/data)" % p)
    return str(p)


def run_tool(*args, check=True):
    r = subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError("hwpc %s: exit %d: %s" % (" ".join(map(str, args)), r.returncode,
                                                       r.stderr))
    return r


def tool_csv(*args):
    """The tool's CSV as (header, rows of strings)."""
    out = run_tool(*args).stdout
    table = list(csv.reader(io.StringIO(out)))
    return table[0], table[1:]


def tool_json_accounting(*args):
    """The accounting trailer of the tool's JSON output (None when it has none)."""
    out = json.loads(run_tool(*args, "--output", "json").stdout)
    last = out[-1] if out else {}
    return last.get("accounting")


def _missing(a, i):
    return np.ma.getmaskarray(a)[i]


def assert_rows_equal_csv(rows, header, table):
    """The columns of `rows` are the tool's CSV: the same names in the same
    order, every cell equal, and a cell missing exactly where the CSV's is empty."""
    assert list(rows.columns) == header, (list(rows.columns), header)
    assert len(rows) == len(table), (len(rows), len(table))
    cols = rows.columns
    for j, name in enumerate(header):
        a = cols[name]
        texts = [r[j] for r in table]
        kind = rows.schema["columns"][name]["kind"]
        if name == "reason":
            assert list(a) == texts, name
        elif name == "lost":
            assert a.dtype == np.bool_
            assert [("1" if v else "0") for v in a] == texts, name
        elif kind == "metric":
            assert a.dtype == np.float64, name
            for i, t in enumerate(texts):
                if t == "":
                    assert _missing(a, i), (name, i, a[i])
                else:
                    v = np.ma.getdata(a)[i]
                    assert not _missing(a, i), (name, i)
                    assert v == float(t) or (math.isnan(v) and t.lower() == "nan"), \
                        (name, i, v, t)
        else:
            # report, offset, timestamp, the counters and ctx_id: integers, missing where
            # the CSV's cell is empty (a loss row's timestamp and counters, an unknown context).
            want = {"report": np.int64, "offset": np.int64, "ctx_id": np.uint32}.get(name,
                                                                                  np.uint64)
            assert a.dtype == want, (name, a.dtype)
            data = np.ma.getdata(a)
            for i, t in enumerate(texts):
                if t == "":
                    assert _missing(a, i), (name, i)
                else:
                    assert not _missing(a, i) and int(data[i]) == int(t), (name, i, a[i], t)


def assert_packets_equal_tool(df, path, *flags):
    """hwpc.adreno.packets' DataFrame is `hwpc adreno --packets --output csv`:
    the same columns in the same order and every field equal (numbers the
    tool writes in hex compared as numbers, an empty field as missing)."""
    header, table = tool_csv("adreno", "--packets", "--output", "csv", *flags, path)
    assert list(df.columns) == header, (list(df.columns), header)
    assert len(df) == len(table), (len(df), len(table))
    hexed = {"gpu_address", "id"}
    for j, name in enumerate(header):
        got = df[name].tolist()
        for i, t in enumerate(r[j] for r in table):
            v = got[i]
            if t == "":
                assert v is None or v is pd_na() or (name == "payload" and v == ""), \
                    (name, i, v)
            elif name in hexed:
                assert int(v) == int(t, 16), (name, i, v, t)
            elif name in ("pass", "name", "payload", "event_name"):
                assert v == t, (name, i, v, t)
            else:
                assert int(v) == int(t), (name, i, v, t)
    return table


def pd_na():
    import pandas as pd

    return pd.NA
