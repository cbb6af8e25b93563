"""The cases where the tool and the Python package once gave different answers:
each one now gives the same answer through both doors."""

import csv
import io
import math

import numpy as np
import pytest

import hwpc
from conftest import run_tool, tool_csv


@pytest.fixture(scope="module")
def lossy_hsw(tmp_path_factory):
    # An emulated HSW capture with lost reports: loss rows with empty cells.
    p = tmp_path_factory.mktemp("drift") / "hsw-lost.i915"
    run_tool("emulate", "--platform", "hsw", "--format", "A45_B8_C8", "--output-kind",
             "i915-stream", "--faults", "report-lost,overflow", "--reports", "400", "--seed",
             "11", "--out", p)
    return str(p)


def test_an_empty_cell_is_missing_in_pandas_not_zero(lossy_hsw):
    kw = {"platform": "hsw", "format": "A45_B8_C8", "input_kind": "i915-stream"}
    df = hwpc.intel.decode(lossy_hsw, **kw).to_pandas()
    header, table = tool_csv("decode", lossy_hsw, "--platform", "hsw", "--format", "A45_B8_C8",
                             "--input-kind", "i915-stream")
    j = header.index("A0")
    cells = [r[j] for r in table]
    assert "" in cells, "the capture must have loss rows for this test to mean anything"
    # The mean of the cells the CSV fills, computed here from the text.
    filled = [int(t) for t in cells if t != ""]
    want = sum(filled) / len(filled)
    assert df["A0"].isna().tolist() == [t == "" for t in cells]
    assert df["timestamp"].isna().tolist() == [r[header.index("timestamp")] == "" for r in table]
    assert df["A0"].count() == len(filled)
    assert math.isclose(df["A0"].mean(), want, rel_tol=1e-12)
    assert math.isclose(df.describe().loc["mean", "A0"], want, rel_tol=1e-12)
    # A 0 in place of the empty cells would have pulled the mean down.
    assert sum(filled) / len(cells) < want
    # ctx_id: the same missing cells in Rows.columns and in pandas.
    rows = hwpc.intel.decode(lossy_hsw, **kw)
    np.testing.assert_array_equal(np.ma.getmaskarray(rows.columns["ctx_id"]),
                                  rows.to_pandas()["ctx_id"].isna().to_numpy())


def test_python_columns_are_the_csv_columns_in_order(lossy_hsw):
    kw = {"platform": "hsw", "format": "A45_B8_C8", "input_kind": "i915-stream"}
    rows = hwpc.intel.decode(lossy_hsw, **kw)
    header, _ = tool_csv("decode", lossy_hsw, "--platform", "hsw", "--format", "A45_B8_C8",
                         "--input-kind", "i915-stream")
    assert list(rows.columns) == header == list(rows.to_pandas().columns)
    assert "begin" not in header and "end" not in header


@pytest.fixture(scope="module")
def mali_vinstr(tmp_path_factory):
    p = tmp_path_factory.mktemp("drift") / "g72.hwpcmali"
    run_tool("mali", "emulate", "--gpu", "mali-g72", "--l2-slices", 2, "--core-mask", "0xb",
             "--samples", 10, "--seed", 5, "--out", p)
    return str(p)


def test_core_index_on_a_vinstr_capture_is_refused_by_both(mali_vinstr):
    r = run_tool("mali", "--core-index", "dense", mali_vinstr, check=False)
    assert r.returncode == 1
    with pytest.raises(ValueError) as e:
        hwpc.mali.decode(mali_vinstr, core_index="dense")
    assert not isinstance(e.value, hwpc.DecodeError)
    # One message, in each door's spelling of the options.
    assert r.stderr.strip() == "hwpc mali: " + str(e.value).replace(
        "core_index", "--core-index").replace("reader='kinstr'", "--reader kinstr")
    assert "vinstr samples have one block per core-mask bit" in str(e.value)


def test_derived_without_bus_width_is_refused_by_both(mali_vinstr):
    r = run_tool("mali", "--derived", "database", mali_vinstr, check=False)
    assert r.returncode == 1 and "needs --bus-width-bits" in r.stderr
    with pytest.raises(ValueError, match="derived needs bus_width_bits"):
        hwpc.mali.decode(mali_vinstr, derived="database")


def _a530_hex(tmp_path):
    """The cmdstream of an emulated A530 .rd as hex text: input that names no GPU."""
    rd = tmp_path / "a530.rd"
    run_tool("adreno", "emulate", "--gpu", "a530", "--rounds", 3, "--seed", 2, "--out", rd)
    from test_equivalence import rd_cmdstream_dwords

    dwords = rd_cmdstream_dwords(rd.read_bytes())
    hx = tmp_path / "a530.hex"
    hx.write_text("".join("%08x\n" % d for d in dwords))
    return str(rd), str(hx)


def test_adreno_queries_check_the_gpu_as_the_tool_does(tmp_path):
    rd, hx = _a530_hex(tmp_path)
    r = run_tool("adreno", "--output", "csv", hx, check=False)
    assert r.returncode == 1 and "query rows need one" in r.stderr
    with pytest.raises(ValueError, match="query rows need one") as e:
        hwpc.adreno.queries(hx)
    assert not isinstance(e.value, hwpc.DecodeError)
    # gpu= is the tool's --gpu: the same rows.
    rows = hwpc.adreno.queries(hx, gpu="a530")
    header, table = tool_csv("adreno", "--output", "csv", "--gpu", "a530", hx)
    assert list(rows.columns) == header and len(rows) == len(table)
    assert rows.schema["source"] == "adreno a5xx queries"


@pytest.mark.parametrize("gpu,source", [("a630", "adreno a6xx queries"),
                                        ("a750", "adreno a7xx queries")])
def test_adreno_queries_name_the_generation_as_the_tool_does(tmp_path, gpu, source):
    rd = tmp_path / (gpu + ".rd")
    run_tool("adreno", "emulate", "--gpu", gpu, "--rounds", 3, "--seed", 2, "--out", rd)
    rows = hwpc.adreno.queries(str(rd))
    # The schema source `hwpc adreno` gives this generation (cmd_adreno.cpp).
    assert rows.schema["source"] == source
    header, table = tool_csv("adreno", "--output", "csv", rd)
    assert list(rows.columns) == header and len(rows) == len(table) > 0


@pytest.mark.parametrize("gpu", ["a630", "a750"])
def test_adreno_packets_use_the_generations_names(tmp_path, gpu):
    rd = tmp_path / (gpu + ".rd")
    run_tool("adreno", "emulate", "--gpu", gpu, "--rounds", 2, "--seed", 4, "--out", rd)
    df = hwpc.adreno.packets(str(rd))
    header, table = tool_csv("adreno", "--packets", "--output", "csv", rd)
    names = [r[header.index("name")] for r in table]
    assert df["name"].fillna("").tolist() == names
    assert df.attrs["gpu"] is not None and gpu[1:] in df.attrs["gpu"]


def test_intel_summaries_are_the_tools(lossy_hsw):
    kw = {"platform": "hsw", "format": "A45_B8_C8", "input_kind": "i915-stream"}
    t = hwpc.intel.decode(lossy_hsw, summary=True, **kw)
    out = run_tool("decode", lossy_hsw, "--platform", "hsw", "--format", "A45_B8_C8",
                   "--input-kind", "i915-stream", "--summary").stdout
    table = list(csv.reader(io.StringIO(out)))
    assert list(t.columns) == table[0]
    for name, text in zip(table[0], table[1]):
        v = t.first(name)
        assert (v is None and text == "") or float(v) == float(text), name


def test_decode_reads_any_vendor_as_the_tool_does(tmp_path, mali_vinstr):
    # hwpc decode FILE and hwpc.decode(path) find the vendor with identify().
    rd = tmp_path / "a630.rd"
    run_tool("adreno", "emulate", "--gpu", "a630", "--rounds", 3, "--seed", 2, "--out", rd)
    for path, own in ((mali_vinstr, ["mali", mali_vinstr]),
                      (str(rd), ["adreno", "--output", "csv", str(rd)])):
        assert run_tool("decode", path).stdout == run_tool(*own).stdout
        rows = hwpc.decode(path)
        header, table = tool_csv("decode", path)
        assert list(rows.columns) == header and len(rows) == len(table) > 0
    assert hwpc.identify(mali_vinstr)["vendor"] == "mali"
    assert hwpc.identify(mali_vinstr)["device"] == "Mali-G72"
    ident = hwpc.identify(str(rd))
    assert ident["vendor"] == "adreno" and ident["input_kind"] == "rd" and "630" in ident["device"]
    with pytest.raises(ValueError, match="cannot tell"):
        hwpc.decode(b"\x01\x02\x03\x00" * 64)
    r = run_tool("decode", mali_vinstr, "--context", "1", check=False)
    assert r.returncode == 1 and "Intel OA options" in r.stderr
