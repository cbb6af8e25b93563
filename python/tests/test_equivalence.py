"""One contract over vendor x input kind x generation: the tool's CSV and
Python's columns (both the library's rows) agree cell for cell, and the
packet listings of `hwpc adreno --packets` and hwpc.adreno.packets agree."""

import struct

import pytest

import hwpc
from conftest import (assert_packets_equal_tool, assert_rows_equal_csv, run_tool, shared_file,
                      tool_csv)

HAVE_XML = hwpc._hwpc.have_pugixml


def rd_cmdstream_dwords(data):
    """The dwords of an .rd capture's first command stream (RD_CMDSTREAM_ADDR's
    buffer), read with the section layout (type, size, payload; docs/adreno.md);
    when the stream is one CP_INDIRECT_BUFFER (opcode 0x3f: address lo, hi,
    dwords), the buffer it calls: the packets themselves, as flat input."""
    buffers, addr, at, streams = {}, None, 0, []
    while at + 8 <= len(data):
        kind, size = struct.unpack_from("<II", data, at)
        payload = data[at + 8:at + 8 + size]
        at += 8 + size
        if kind == 3:  # RD_GPUADDR: address lo, size, address hi
            lo, _, hi = struct.unpack_from("<III", payload)
            addr = (hi << 32) | lo
        elif kind == 12 and addr is not None:  # RD_BUFFER_CONTENTS
            buffers[addr] = payload
        elif kind == 6:  # RD_CMDSTREAM_ADDR: address lo, dwords, address hi
            lo, n, hi = struct.unpack_from("<III", payload)
            streams.append(((hi << 32) | lo, n))
    def read(start, n):
        for base, b in buffers.items():
            if base <= start < base + len(b):
                return list(struct.unpack_from("<%dI" % n, b, start - base))
        raise AssertionError("no buffer holds 0x%x" % start)

    d = read(*streams[0])
    if len(d) == 4 and (d[0] >> 28) == 7 and ((d[0] >> 16) & 0x7F) == 0x3F:
        d = read((d[2] << 32) | d[1], d[3])
    return d


def _adreno_inputs(d, gpu):
    rd = d / (gpu + ".rd")
    run_tool("adreno", "emulate", "--gpu", gpu, "--rounds", 3, "--seed", 9, "--out", rd)
    dwords = rd_cmdstream_dwords(rd.read_bytes())
    hx, bn = d / (gpu + ".hex"), d / (gpu + ".bin")
    hx.write_text("".join("%08x\n" % v for v in dwords))
    bn.write_bytes(struct.pack("<%dI" % len(dwords), *dwords))
    return {"rd": str(rd), "hex": str(hx), "bin": str(bn)}


@pytest.fixture(scope="module")
def adreno_inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("equiv-adreno")
    return {g: _adreno_inputs(d, g) for g in ("a530", "a630", "a750")}


@pytest.mark.parametrize("gpu", ["a530", "a630", "a750"])
@pytest.mark.parametrize("kind", ["rd", "hex", "bin"])
def test_adreno_packet_listings_agree(adreno_inputs, gpu, kind):
    path = adreno_inputs[gpu][kind]
    # .rd names its GPU; hex and raw dwords are given it, as --gpu.
    flags, kw = ([], {}) if kind == "rd" else (["--gpu", gpu], {"gpu": gpu})
    df = hwpc.adreno.packets(path, **kw)
    table = assert_packets_equal_tool(df, path, *flags)
    assert len(table) > 10
    # Without a GPU, numbers only: still the same listing.
    if kind != "rd":
        assert_packets_equal_tool(hwpc.adreno.packets(path), path)


@pytest.mark.parametrize("gpu", ["a530", "a630", "a750"])
@pytest.mark.parametrize("kind", ["rd", "hex", "bin"])
def test_adreno_query_rows_agree(adreno_inputs, gpu, kind):
    path = adreno_inputs[gpu][kind]
    flags, kw = ([], {}) if kind == "rd" else (["--gpu", gpu], {"gpu": gpu})
    rows = hwpc.adreno.queries(path, **kw)
    header, table = tool_csv("adreno", "--output", "csv", *flags, path)
    assert_rows_equal_csv(rows, header, table)
    if kind == "rd":
        assert len(rows) > 0


MALI = {
    # (gpu, reader): 64-value blocks on vinstr and kinstr, 128-value blocks on kinstr.
    "g72-vinstr": ("mali-g72", "vinstr", 2, 0xB),
    "g72-kinstr": ("mali-g72", "kinstr", 2, 0xB),
    "g720-kinstr": ("Mali-G720", "kinstr", 2, 0x3F),
}


@pytest.mark.parametrize("name", list(MALI))
def test_mali_rows_agree(tmp_path, name):
    gpu, reader, l2, mask = MALI[name]
    path = tmp_path / (name + ".hwpcmali")
    run_tool("mali", "emulate", "--gpu", gpu, "--reader", reader, "--l2-slices", l2,
             "--core-mask", hex(mask), "--samples", "30", "--seed", "6", "--out", path)
    rows = hwpc.mali.decode(str(path), bus_width_bits=128)
    header, table = tool_csv("mali", "--bus-width-bits", "128", path)
    assert_rows_equal_csv(rows, header, table)
    assert len(rows) == 30


INTEL = {
    "raw": (["--platform", "hsw", "--format", "A45_B8_C8", "--output-kind", "raw",
             "--faults", "wrap"], ["--platform", "hsw", "--format", "A45_B8_C8"]),
    "i915-stream": (["--platform", "skl", "--format", "A32u40_A4u32_B8_C8", "--output-kind",
                     "i915-stream", "--faults", "report-lost,ctx-switch"],
                    ["--platform", "skl", "--format", "A32u40_A4u32_B8_C8", "--input-kind",
                     "i915-stream"]),
    "i915-recording": (["--platform", "tgl", "--format", "A32u40_A4u32_B8_C8", "--output-kind",
                        "recording", "--faults", "report-lost"], []),
    "xe-recording": (["--platform", "lnl", "--format", "PEC64u64", "--output-kind",
                      "xe-recording"], []),
}


@pytest.mark.parametrize("name", list(INTEL))
def test_intel_rows_agree(tmp_path, name):
    emu, flags = INTEL[name]
    path = tmp_path / (name + ".bin")
    run_tool("emulate", *emu, "--reports", "200", "--seed", "8", "--out", path)
    kw = {}
    for k, v in zip(flags[::2], flags[1::2]):
        kw[k[2:].replace("-", "_")] = v
    rows = hwpc.intel.decode(str(path), **kw)
    header, table = tool_csv("decode", path, *flags)
    assert_rows_equal_csv(rows, header, table)
    assert len(rows) > 50


def test_intel_rows_with_metrics_agree(tmp_path):
    if not HAVE_XML:
        pytest.skip("built without pugixml: no metric files")
    xml = shared_file("intel-metrics", "oa-tglgt2.xml")
    path = tmp_path / "tgl.rec"
    run_tool("emulate", "--platform", "tgl", "--format", "A32u40_A4u32_B8_C8", "--output-kind",
             "recording", "--faults", "report-lost", "--metrics", xml, "--set", "RenderBasic",
             "--reports", "200", "--seed", "8", "--out", path)
    rows = hwpc.intel.decode(str(path), metrics=xml)
    header, table = tool_csv("decode", path, "--metrics", xml)
    assert_rows_equal_csv(rows, header, table)


def _one_of_each_vendor(d):
    """(what, path, options): an Intel raw capture (its platform and format
    given) and recording, a Mali kinstr capture file, an Adreno .rd."""
    raw, rec = d / "hsw.raw", d / "tgl.rec"
    run_tool("emulate", "--platform", "hsw", "--format", "A45_B8_C8", "--output-kind", "raw",
             "--faults", "wrap", "--reports", "150", "--seed", "3", "--out", raw)
    run_tool("emulate", "--platform", "tgl", "--format", "A32u40_A4u32_B8_C8", "--output-kind",
             "recording", "--faults", "report-lost", "--reports", "150", "--seed", "3",
             "--out", rec)
    mali = d / "g78.hwpcmali"
    run_tool("mali", "emulate", "--gpu", "mali-g78", "--reader", "kinstr", "--samples", "20",
             "--seed", "3", "--out", mali)
    rd = d / "a530.rd"
    run_tool("adreno", "emulate", "--gpu", "a530", "--rounds", "3", "--seed", "3", "--out", rd)
    return {
        "intel-raw": (str(raw), {"platform": "hsw", "format": "A45_B8_C8"}),
        "intel-recording": (str(rec), {}),
        "mali-kinstr": (str(mali), {}),
        "adreno-rd": (str(rd), {}),
    }


@pytest.fixture(scope="module")
def one_of_each(tmp_path_factory):
    return _one_of_each_vendor(tmp_path_factory.mktemp("decode-any"))


@pytest.mark.parametrize("what", ["intel-raw", "intel-recording", "mali-kinstr", "adreno-rd"])
def test_decode_of_any_vendor_is_the_tools_decode(one_of_each, what):
    # hwpc.decode and `hwpc decode FILE --output csv`: both hwpc::open, the same rows.
    path, kw = one_of_each[what]
    flags = []
    for k, v in kw.items():
        flags += ["--" + k.replace("_", "-"), v]
    rows = hwpc.decode(path, **kw)
    header, table = tool_csv("decode", path, *flags, "--output", "csv")
    assert_rows_equal_csv(rows, header, table)
    assert len(rows) >= 10
    # The vendor's own call gives the same rows, schema and accounting.
    vendor = what.split("-")[0]
    own = {"intel": hwpc.intel.decode, "mali": hwpc.mali.decode,
           "adreno": hwpc.adreno.queries}[vendor](path, **kw)
    assert own.schema == rows.schema and own.accounting == rows.accounting
    assert (own.dropped, own.issues, own.warnings) == (rows.dropped, rows.issues, rows.warnings)
    assert_rows_equal_csv(own, header, table)
