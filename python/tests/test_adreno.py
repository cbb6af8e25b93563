"""hwpc.adreno against `hwpc adreno` on an .rd capture encoded here."""

import numpy as np
import pytest

import hwpc
from adreno_capture import capture
from conftest import assert_packets_equal_tool, assert_rows_equal_csv, run_tool, tool_csv


@pytest.fixture(scope="module")
def rd(tmp_path_factory):
    p = tmp_path_factory.mktemp("adreno") / "q.rd"
    p.write_bytes(capture())
    return str(p)


def test_query_rows_equal_the_tools_csv(rd):
    rows = hwpc.adreno.queries(rd)
    header, table = tool_csv("adreno", "--output", "csv", rd)
    assert len(rows) == 5
    # Built by hand: the occlusion result 42, the time-elapsed 5 ms, the CP
    # counter's 64-bit copy, the always-on read of 2 s.
    assert rows.columns["samples_passed"][0] == 42
    assert rows.columns["time_elapsed"][1] == 5_000_000
    assert rows.columns["CP_1"][2] == 0x1_0000_0005
    assert rows.columns["gpu_time"][3] == 2_000_000_000
    assert rows.columns["CP_1"][4] is np.ma.masked  # its memory is not in the capture
    assert list(rows.columns["reason"]) == ["occlusion", "time-elapsed", "PERF_CP_BUSY_CYCLES",
                                            "always-on", "PERF_CP_BUSY_CYCLES"]
    # The rows of the tool, column for column (no `lost`: this source loses none).
    assert_rows_equal_csv(rows, header, table)
    assert rows.schema["ticks_per_second"] == 19_200_000
    assert rows.schema.get("gpu_id") == 530


def test_query_summary_equals_the_tools(rd):
    t = hwpc.adreno.queries(rd, summary=True)
    header, table = tool_csv("adreno", "--summary", rd)
    assert list(t.columns) == header
    for name, text in zip(header, table[0]):
        v = t.first(name)
        assert (v is None and text == "") or v == float(text), name


def test_packets_list_what_the_tool_lists(rd):
    df = hwpc.adreno.packets(rd)
    assert_packets_equal_tool(df, rd)
    assert (df["depth"] == 0).all() and df["gpu_address"].iloc[0] == 0x10000
    assert "530" in df.attrs["gpu"]


def test_damaged_input_reports_the_offset(tmp_path):
    p = tmp_path / "bad.rd"
    data = capture()
    p.write_bytes(data[:-7])
    r = run_tool("adreno", "--output", "csv", p, check=False)
    rows = hwpc.adreno.queries(str(p))
    # A damaged stream gives its rows and lists its problems as the tool does.
    tool_issues = [ln[len("hwpc adreno: "):] for ln in r.stderr.splitlines()
                   if "byte offset" in ln]
    assert tool_issues and [i for i in rows.issues if "byte offset" in i] == tool_issues
    with pytest.raises(hwpc.DecodeError) as e:
        hwpc.adreno.queries(b"")
    assert "empty" in str(e.value) and e.value.offset == 0
