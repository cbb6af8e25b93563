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


def assert_rows_equal_csv(rows, header, table):
    """Every column of `rows` equals the tool's CSV, row for row."""
    assert len(rows) == len(table), (len(rows), len(table))
    cols = rows.columns
    lost = cols["lost"]
    for j, name in enumerate(header):
        assert name in cols, "column %s missing from %s" % (name, list(cols))
        a = cols[name]
        texts = [r[j] for r in table]
        kind = rows.schema["columns"][name]["kind"]
        if name == "reason":
            assert list(a) == texts, name
        elif name == "lost":
            assert a.dtype == np.bool_
            assert [("1" if v else "0") for v in a] == texts, name
        elif name == "ctx_id":
            assert a.dtype == np.int64
            assert [("" if v < 0 else str(v)) for v in a] == texts, name
        elif kind == "metric":
            assert a.dtype == np.float64, name
            for i, t in enumerate(texts):
                if t == "":
                    assert math.isnan(a[i]), (name, i, a[i])
                else:
                    assert a[i] == float(t) or (math.isnan(a[i]) and t.lower() == "nan"), \
                        (name, i, a[i], t)
        else:
            # report, offset, timestamp and the counters: integers, empty on a loss row.
            want = np.uint64 if kind == "counter" or name == "timestamp" else np.int64
            assert a.dtype == want, (name, a.dtype)
            for i, t in enumerate(texts):
                if t == "":
                    assert lost[i], (name, i)
                    if kind == "counter":
                        assert a[i] == 0
                else:
                    assert int(a[i]) == int(t), (name, i, a[i], t)
    assert (cols["begin"] <= cols["end"]).all()
