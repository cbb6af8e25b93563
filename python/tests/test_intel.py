"""hwpc.intel.decode against `hwpc decode` on the OA emulator's captures."""

import numpy as np
import pytest

import hwpc
from conftest import assert_rows_equal_csv, run_tool, shared_file, tool_csv, tool_json_accounting

# A build without pugixml has no metric XML loader (nor has its tool): the
# rows are compared without metrics, and asking for them fails alike.
HAVE_XML = hwpc._hwpc.have_pugixml

# (name, emulate arguments, decode arguments, metric file, set) per input kind.
CASES = {
    "raw": (["--platform", "hsw", "--format", "A45_B8_C8", "--output-kind", "raw",
             "--faults", "wrap,tail-ahead"],
            {"platform": "hsw", "format": "A45_B8_C8"}, "oa-hsw.xml", "RenderBasic"),
    "i915-stream": (["--platform", "skl", "--format", "A32u40_A4u32_B8_C8",
                     "--output-kind", "i915-stream", "--faults", "report-lost,ctx-switch"],
                    {"platform": "skl", "format": "A32u40_A4u32_B8_C8",
                     "input_kind": "i915-stream"}, "oa-sklgt2.xml", "RenderBasic"),
    "recording": (["--platform", "tgl", "--format", "A32u40_A4u32_B8_C8",
                   "--output-kind", "recording", "--faults", "report-lost,ctx-switch"],
                  {}, "oa-tglgt2.xml", "RenderBasic"),
}


def _kwargs_to_flags(kw):
    flags = []
    for k, v in kw.items():
        flags += ["--" + k.replace("_", "-"), v]
    return flags


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    d = tmp_path_factory.mktemp("intel")
    out = {}
    for name, (emu, kw, xml, s) in CASES.items():
        metrics = shared_file("intel-metrics", xml)
        path = d / (name + ".bin")
        extra = ["--metrics", metrics, "--set", s] if name == "recording" and HAVE_XML else []
        run_tool("emulate", *emu, "--reports", "300", "--seed", "7", *extra, "--out", path)
        out[name] = (str(path), kw, metrics, s)
    # An Xe recording (xe-perf-recorder), with the set it names.
    xml = shared_file("intel-metrics-xe", "oa-lnl.xml")
    path = d / "xe.rec"
    extra = ["--metrics", xml, "--set", "RenderBasic"] if HAVE_XML else ["--format", "PEC64u64"]
    run_tool("emulate", "--platform", "lnl", "--output-kind", "xe-recording", *extra,
             "--reports", "120", "--exponent", "9", "--out", path)
    out["xe-recording"] = (str(path), {}, xml, None)
    return out


@pytest.mark.parametrize("kind", ["raw", "i915-stream", "recording", "xe-recording"])
def test_every_column_equals_the_tools_csv(captures, kind):
    path, kw, metrics, s = captures[kind]
    set_kw = {"set": s} if s and kind != "recording" else {}
    flags = _kwargs_to_flags(kw) + ["--metrics", metrics] + (["--set", s] if set_kw else [])
    if not HAVE_XML:
        r = run_tool("decode", path, *flags, check=False)
        with pytest.raises(hwpc.DecodeError) as e:
            hwpc.intel.decode(path, metrics=metrics, **kw, **set_kw)
        assert r.returncode == 2 and r.stderr.strip() == "hwpc decode: " + str(e.value)
        metrics, set_kw, flags = None, {}, _kwargs_to_flags(kw)
    rows = hwpc.intel.decode(path, metrics=metrics, **kw, **set_kw)
    header, table = tool_csv("decode", path, *flags)
    assert len(rows) > 50
    assert sum(c["kind"] == "counter" for c in rows.schema["columns"].values()) > 10
    assert any(c["kind"] == "metric" for c in rows.schema["columns"].values()) == HAVE_XML
    assert_rows_equal_csv(rows, header, table)
    # The accounting: the JSON trailer's buckets when anything was dropped,
    # else one interval per row and every record in a bucket.
    trailer = tool_json_accounting("decode", path, *flags)
    if trailer is not None:
        assert rows.accounting == trailer
    else:
        assert rows.accounting["intervals"] == len(rows)
        assert rows.accounting["records"] == rows.accounting["reports"]


def test_faulty_captures_have_a_trailer_and_loss_rows(captures):
    # The cases above are built to drop something: the trailer check is not vacuous.
    for kind in ("raw", "i915-stream", "recording"):
        path, kw, metrics, s = captures[kind]
        assert tool_json_accounting("decode", path, *_kwargs_to_flags(kw)) is not None, kind
    rows = hwpc.intel.decode(captures["i915-stream"][0], **captures["i915-stream"][1])
    assert rows.columns["lost"].any()
    assert (~np.ma.getmaskarray(rows.columns["ctx_id"])).any()


def test_summary_equals_the_tools_summary(captures):
    path, kw, metrics, s = captures["i915-stream"]
    m_kw = {"metrics": metrics, "set": s} if HAVE_XML else {}
    t = hwpc.intel.decode(path, summary=True, **m_kw, **kw)
    header, table = tool_csv("decode", path, *_kwargs_to_flags(kw), *_kwargs_to_flags(m_kw),
                             "--summary")
    assert len(t) == 1 and list(t.columns) == header
    for name, text in zip(header, table[0]):
        v = t.first(name)
        if t.schema["columns"][name]["kind"] == "metric":
            assert (v is None and text == "") or v == float(text), name
        else:
            assert int(v) == int(text), name


def test_bytes_memoryview_and_numpy_sources_give_the_same_columns(captures):
    path, kw, _, _ = captures["raw"]
    by_path = hwpc.intel.decode(path, **kw)
    data = open(path, "rb").read()
    arr = np.frombuffer(data, dtype=np.uint8)
    for src in (data, memoryview(data), arr, bytearray(data)):
        other = hwpc.intel.decode(src, **kw)
        assert list(other.columns) == list(by_path.columns)
        for k in by_path.columns:
            np.testing.assert_array_equal(other.columns[k], by_path.columns[k])
    with pytest.raises(TypeError):
        hwpc.intel.decode(np.zeros(4, dtype=np.uint32), **kw)


def test_to_pandas_keeps_order_dtypes_and_units(captures):
    path, kw, metrics, s = captures["raw"]
    m_kw = {"metrics": metrics, "set": s} if HAVE_XML else {}
    rows = hwpc.intel.decode(path, **m_kw, **kw)
    df = rows.to_pandas()
    assert list(df.columns) == list(rows.columns)
    assert str(df["A0"].dtype) == "UInt64" and df["report"].dtype == np.int64
    assert str(df["reason"].dtype) == "category"
    assert str(df["ctx_id"].dtype) == "UInt32"
    assert df.attrs["units"]["A0"] == "events"
    if HAVE_XML:
        assert df.attrs["units"]["GpuTime"] == rows.schema["columns"]["GpuTime"]["units"] != ""
    assert rows.schema["clock"] == "gpu_timestamp" and rows.schema["ticks_per_second"] > 0
    np.testing.assert_array_equal(df["A0"].to_numpy(dtype=np.uint64, na_value=0),
                                  rows.columns["A0"].filled(0))
    assert (df["A0"].isna().to_numpy() == np.ma.getmaskarray(rows.columns["A0"])).all()


def test_errors_carry_the_tools_message_and_offset(captures, tmp_path):
    path, kw, _, _ = captures["recording"]
    data = open(path, "rb").read()
    cut = tmp_path / "cut.rec"
    cut.write_bytes(data[: len(data) // 2 + 3])
    r = run_tool("decode", cut, check=False)
    assert r.returncode == 2
    with pytest.raises(hwpc.DecodeError) as e:
        hwpc.intel.decode(str(cut))
    assert r.stderr.strip() == "hwpc decode: " + str(e.value)
    assert e.value.offset is not None and ("byte offset %d" % e.value.offset) in r.stderr
    assert isinstance(e.value, ValueError) and e.value.column is None
    # A raw file that is not a whole number of reports.
    raw, rkw, _, _ = captures["raw"]
    odd = tmp_path / "odd.raw"
    odd.write_bytes(open(raw, "rb").read()[:1000])
    r = run_tool("decode", odd, *_kwargs_to_flags(rkw), check=False)
    with pytest.raises(hwpc.DecodeError) as e:
        hwpc.intel.decode(odd, **rkw)
    assert r.stderr.strip() == "hwpc decode: " + str(e.value)
    assert ("byte offset %d" % e.value.offset) in r.stderr
    # Usage errors are ValueError, not DecodeError.
    with pytest.raises(ValueError) as u:
        hwpc.intel.decode(raw, platform="nope", format="A45_B8_C8")
    assert not isinstance(u.value, hwpc.DecodeError)


# An integer quotient used as a double: metrics-discovery's arithmetic
# (A0 * 100 / (7 * T), the default) and IGT's (floor(A0 / 7) * 100 / T) differ
# on every row whose A0 does not divide by 7 (docs/expressions.md).
PCT_XML = """<?xml version="1.0"?>
<metrics>
  <set name="P" symbol_name="P" chipset="HSW" hw_config_guid="x">
    <counter name="Pct" symbol_name="Pct" data_type="float"
             equation="A 0 READ $Eus UDIV 100 UMUL GPU_TIME 0 READ FDIV"/>
  </set>
</metrics>
"""


def test_arithmetic_equals_the_tools_csv(captures, tmp_path):
    if not HAVE_XML:
        pytest.skip("no metric XML loader in this build (pugixml)")
    path, kw, _, _ = captures["raw"]
    xml = tmp_path / "pct.xml"
    xml.write_text(PCT_XML)
    got = {}
    for arithmetic in ("mdapi", "igt"):
        rows = hwpc.intel.decode(path, metrics=xml, set="P", device_vars={"Eus": 7},
                                 arithmetic=arithmetic, **kw)
        header, table = tool_csv("decode", path, *_kwargs_to_flags(kw), "--metrics", xml,
                                 "--set", "P", "--device-var", "Eus=7",
                                 "--arithmetic", arithmetic)
        assert_rows_equal_csv(rows, header, table)
        got[arithmetic] = rows.columns["Pct"]
    default = hwpc.intel.decode(path, metrics=xml, set="P", device_vars={"Eus": 7}, **kw)
    np.testing.assert_array_equal(default.columns["Pct"], got["mdapi"])
    # The option reaches the formulas: IGT's truncated quotient is below on some rows.
    assert (got["igt"] < got["mdapi"]).any()

def test_arithmetic_needs_metrics_and_a_known_name(captures):
    path, kw, metrics, s = captures["raw"]
    with pytest.raises(ValueError, match="needs metrics"):
        hwpc.intel.decode(path, arithmetic="igt", **kw)
    with pytest.raises(ValueError, match="mdapi or igt"):
        hwpc.intel.decode(path, metrics=metrics, set=s, arithmetic="exact", **kw)


# definitions="newer" on an Xe2 set metrics-discovery also defines: the same
# columns and values as `hwpc decode --definitions newer`, MDAPI's doubled
# XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION and its two extra metrics included.
def test_definitions_equal_the_tools_csv(tmp_path):
    if not HAVE_XML:
        pytest.skip("no metric XML loader in this build (pugixml)")
    xml = shared_file("intel-metrics-xe", "oa-lnl.xml")
    rec = tmp_path / "lnl.rec"
    run_tool("emulate", "--platform", "lnl", "--metrics", xml, "--set", "ComputeBasic",
             "--output-kind", "xe-recording", "--reports", "16", "--out", rec)
    alu2 = "XVE_INST_EXECUTED_ALU2_ALL_UTILIZATION"
    got = {}
    for definitions in ("mdapi", "newer"):
        rows = hwpc.intel.decode(rec, metrics=xml, set="ComputeBasic", definitions=definitions)
        header, table = tool_csv("decode", rec, "--metrics", xml, "--set", "ComputeBasic",
                                 "--definitions", definitions)
        assert_rows_equal_csv(rows, header, table)
        got[definitions] = rows
    assert "ResultUncertainty" in got["newer"].columns
    assert "ResultUncertainty" not in got["mdapi"].columns
    assert (got["mdapi"].columns[alu2] > 0).any()
    np.testing.assert_allclose(got["newer"].columns[alu2], 2 * got["mdapi"].columns[alu2])


def test_definitions_need_metrics_and_the_mdapi_arithmetic(captures):
    path, kw, metrics, s = captures["raw"]
    with pytest.raises(ValueError, match="needs metrics"):
        hwpc.intel.decode(path, definitions="newer", **kw)
    with pytest.raises(ValueError, match="must be file, mdapi or newer"):
        hwpc.intel.decode(path, metrics=metrics, set=s, definitions="igt", **kw)
    with pytest.raises(ValueError, match="not igt's"):
        hwpc.intel.decode(path, metrics=metrics, set=s, arithmetic="igt", definitions="newer",
                          **kw)
    if HAVE_XML:  # without pugixml, metrics= is refused before any formula is chosen
        rows = hwpc.intel.decode(path, metrics=metrics, set=s, arithmetic="igt",
                                 definitions="file", **kw)
        assert len(rows) > 0
