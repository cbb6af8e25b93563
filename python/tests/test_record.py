"""hwpc.intel.record and hwpc.mali.record: live sessions under the preload
shim (the build's libhwpc_kernel_shim.so, which presents a simulated
/dev/dri/renderD128 or /dev/mali0 to the process), in a subprocess of
/usr/bin/python3 so that the shim is loaded first. The batches, put end to
end, are the rows hwpc.intel.decode / hwpc.mali.decode give for the file
the same session wrote: every column, every mask, the accounting.
"""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

import hwpc
from conftest import TOOL, shared_file

SHIM = Path(hwpc.__file__).resolve().parents[2] / "libhwpc_kernel_shim.so"

# Runs in the shimmed interpreter: records, decodes the file, compares, and
# prints what the parent checks as JSON.
CHILD = r"""
import json, sys
import numpy as np
import hwpc

vendor, kw, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
record = hwpc.intel.record if vendor == "intel" else hwpc.mali.record
decode = hwpc.intel.decode if vendor == "intel" else hwpc.mali.decode
result = {}
try:
    with record(out=out, **kw) as rec:
        batches = []
        for rows in rec:
            batches.append(rows)
            if kw.get("duration") is None:
                rec.stop()
except (OSError, ValueError) as e:
    print(json.dumps({"error": type(e).__name__, "message": str(e)}))
    sys.exit(0)
if kw.get("per_instance"):
    whole = decode(out, per_instance=True)
elif kw.get("metrics"):
    whole = decode(out, metrics=kw["metrics"], set=kw["set"])
else:
    whole = decode(out)
result["batches"] = len(batches)
result["rows"] = sum(len(b) for b in batches)
result["file_rows"] = len(whole)
result["columns"] = list(whole.columns)
result["columns_equal"] = all(list(b.columns) == list(whole.columns) for b in batches)
diff = []
for name in whole.columns:
    got = np.ma.concatenate([np.ma.asarray(b.columns[name]) for b in batches]) \
        if batches else np.ma.asarray([])
    want = np.ma.asarray(whole.columns[name])
    if len(got) != len(want) or not (np.ma.getdata(got) == np.ma.getdata(want)).all() \
            or not (np.ma.getmaskarray(got) == np.ma.getmaskarray(want)).all():
        diff.append(name)
result["different_columns"] = diff
result["accounting_equal"] = bool(batches) and batches[-1].accounting == whole.accounting
result["accounting"] = whole.accounting
result["lost_rows"] = int(np.asarray(whole.columns.get("lost", [])).sum())
result["counts"] = rec.counts
if len(sys.argv) > 5:
    # The tool's rows of the same simulated device (`hwpc record --output csv`):
    # the batches, put end to end, must be them.
    import csv
    sys.path.insert(0, sys.argv[5])
    from conftest import assert_rows_equal_csv
    with open(sys.argv[4], newline="") as f:
        table = list(csv.reader(f))
    at = 0
    try:
        for b in batches:
            assert_rows_equal_csv(b, table[0], table[1 + at:1 + at + len(b)])
            at += len(b)
        assert at == len(table) - 1, (at, len(table) - 1)
        result["tool_rows"] = at
    except AssertionError as e:
        result["tool_diff"] = repr(e)
print(json.dumps(result))
"""


def shim_env(device, fault=""):
    if not SHIM.exists():
        pytest.skip("the preload shim is not built (%s)" % SHIM)
    return dict(os.environ, LD_PRELOAD=str(SHIM), HWPC_SHIM_DEVICE=device,
                HWPC_SHIM_FAULT=fault, HWPC_SHIM_REPORTS="40")


def shimmed(device, vendor, tmp_path, fault="", tool_csv=None, **kw):
    """Records in a shimmed interpreter; with `tool_csv` (the tool's rows of
    the same device), the batches are compared with them too."""
    env = shim_env(device, fault)
    out = tmp_path / ("live.rec" if vendor == "intel" else "live.hwpcmali")
    extra = [] if tool_csv is None else [str(tool_csv), str(Path(__file__).parent)]
    r = subprocess.run(["/usr/bin/python3", "-c", CHILD, vendor, json.dumps(kw), str(out),
                        *extra], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def same_rows(res):
    assert "error" not in res, res
    assert res["rows"] == res["file_rows"] > 0, res
    assert res["columns_equal"], res
    assert res["different_columns"] == [], res
    assert res["accounting_equal"], res


def test_intel_batches_are_the_files_rows(tmp_path):
    res = shimmed("intel:hsw", "intel", tmp_path, set_id=2, set="RenderBasic", exponent=12,
                  duration=0.3)
    same_rows(res)
    assert res["counts"]["done"] and res["counts"]["samples"] == res["accounting"]["reports"]


@pytest.mark.skipif(not hwpc._hwpc.have_pugixml,
                    reason="the metric XML loader (pugixml) is not built in")
def test_intel_metric_columns_are_decodes(tmp_path):
    # The batches carry the set's metric columns, computed on the recording's
    # device as hwpc.intel.decode(out, metrics=..., set=...) computes them.
    xml = shared_file("intel-metrics", "oa-hsw.xml")
    res = shimmed("intel:hsw", "intel", tmp_path, metrics=xml, set="RenderBasic",
                  period=0.001, duration=0.3)
    same_rows(res)
    assert "GpuBusy" in res["columns"], res


def test_intel_overflow_gives_loss_rows(tmp_path):
    res = shimmed("intel:skl", "intel", tmp_path, fault="overflow", set_id=2, exponent=10,
                  duration=0.3)
    same_rows(res)
    assert res["accounting"]["buffer_lost"] > 0 and res["lost_rows"] > 0, res


def test_intel_stop_ends_a_session_without_duration(tmp_path):
    res = shimmed("intel:tgl", "intel", tmp_path, set_id=2, period=0.0005)
    same_rows(res)


def test_mali_batches_are_the_files_rows(tmp_path):
    same_rows(shimmed("mali:g78", "mali", tmp_path, period=0.005, duration=0.2))
    same_rows(shimmed("mali:g720", "mali", tmp_path, period=0.002, duration=0.1,
                      per_instance=True))


def test_mali_full_ring_gives_gaps(tmp_path):
    res = shimmed("mali:g720", "mali", tmp_path, fault="overflow", period=0.001, duration=0.1)
    same_rows(res)
    assert res["accounting"]["gaps"] > 0 and res["counts"]["overflow"] > 0, res


def test_refusals_say_what_to_change(tmp_path):
    res = shimmed("intel:tgl", "intel", tmp_path, fault="eacces", set_id=2, duration=0.1)
    assert res["error"] == "OSError", res
    assert "dev.i915.perf_stream_paranoid" in res["message"] and "CAP_PERFMON" in res["message"]
    res = shimmed("intel:tgl", "mali", tmp_path, duration=0.1)
    assert res["error"] == "OSError" and "no such device: /dev/mali0" in res["message"], res
    res = shimmed("mali:g78", "mali", tmp_path, fault="no-kinstr", duration=0.1)
    assert res["error"] == "OSError" and "too old for kinstr_prfcnt" in res["message"], res


@pytest.mark.parametrize("kw, words", [
    (dict(), "name the metric set"),
    (dict(set_id=2, exponent=40), "exponent: 0..31"),
    (dict(set_id=2, exponent=3, period=0.001), "give one"),
    (dict(set_id=2, metrics="oa-tgl.xml"), "give one"),
    (dict(metrics="oa-tgl.xml"), "metrics needs set"),
    (dict(set_id=2, duration=-1), "duration: a positive number"),
])
def test_intel_usage_errors(kw, words):
    with pytest.raises(ValueError, match=words):
        hwpc.intel.record(**kw)


def test_mali_usage_errors():
    with pytest.raises(ValueError, match="names: expected hardware or streamline"):
        hwpc.mali.record(names="arm")
    with pytest.raises(ValueError, match="period: a positive number"):
        hwpc.mali.record(period=0)


def test_iterating_outside_with_is_refused():
    rec = hwpc.mali.record(device="/nonexistent/mali0")
    with pytest.raises(ValueError, match="inside `with"):
        next(iter(rec))


def tool_recorded(device, vendor, tmp_path, *args, fault=""):
    """`hwpc record VENDOR ARGS --output csv` under the shim: its rows, in a file."""
    out = tmp_path / ("tool.rec" if vendor == "intel" else "tool.hwpcmali")
    r = subprocess.run([TOOL, "record", vendor, *args, "--out", str(out), "--output", "csv"],
                       env=shim_env(device, fault), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = tmp_path / (vendor + ".csv")
    rows.write_text(r.stdout)
    return rows, r.stderr, out


@pytest.mark.parametrize("device, vendor, fault, tool_args, kw", [
    ("intel:hsw", "intel", "", ["--set-id", "2", "--exponent", "12", "--duration", "1s"],
     dict(set_id=2, exponent=12, duration=1.0)),
    # The Xe driver: the rows of the finished file, through both doors.
    ("intel:lnl", "intel", "", ["--set-id", "2", "--exponent", "12", "--duration", "1s"],
     dict(set_id=2, exponent=12, duration=1.0)),
    ("intel:skl", "intel", "overflow", ["--set-id", "2", "--exponent", "10", "--duration", "1s"],
     dict(set_id=2, exponent=10, duration=1.0)),
    ("mali:g78", "mali", "", ["--period", "5ms", "--duration", "1s"],
     dict(period=0.005, duration=1.0)),
    ("mali:g720", "mali", "overflow", ["--period", "1ms", "--duration", "1s"],
     dict(period=0.001, duration=1.0)),
])
def test_the_tool_and_python_record_the_same_rows(tmp_path, device, vendor, fault, tool_args,
                                                  kw):
    # One library object records for both doors: the same simulated device
    # gives the same rows through `hwpc record --output csv` and through the
    # batches, and the same summary of what the kernel handed out.
    rows, stderr, _ = tool_recorded(device, vendor, tmp_path, *tool_args, fault=fault)
    res = shimmed(device, vendor, tmp_path, fault=fault, tool_csv=rows, **kw)
    same_rows(res)
    assert "tool_diff" not in res, res["tool_diff"]
    assert res["tool_rows"] == res["rows"] > 0, res
    # What the kernel handed out, in the same words (the bytes aside: the
    # correlation points follow the wall clock).
    what = re.sub(r"\d+ bytes to .*", "", res["counts"]["summary"][0])
    assert "hwpc record %s: %s" % (vendor, what) in stderr, (what, stderr)


def test_a_refused_device_leaves_no_file(tmp_path):
    out = tmp_path / "refused.rec"
    r = subprocess.run([TOOL, "record", "intel", "--set-id", "2", "--duration", "100ms",
                        "--out", str(out)], env=shim_env("intel:tgl", "eacces"),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "CAP_PERFMON" in r.stderr, r.stderr
    assert not out.exists()
    res = shimmed("intel:tgl", "intel", tmp_path, fault="eacces", set_id=2, duration=0.1)
    assert res["error"] == "OSError", res
    assert not (tmp_path / "live.rec").exists()
