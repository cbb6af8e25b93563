"""Decodes from several Python threads at once.

Every decode releases the GIL while the library reads the capture, so other
threads (a Dask client's event loop, a user's thread pool) run meanwhile.
Nothing may touch a Python object in that time: the extension is built with
PYBIND11_ASSERT_GIL_HELD_INCREF_DECREF, which aborts the process when it does,
and a thread that allocates Python objects all along makes a race show.
Each call here runs in four threads at once and must give what it gives alone;
hwpc.decode and the vendors' calls are one binding of the library's hwpc::open
(python/src/open.cpp).
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import hwpc
from conftest import run_tool


def _captures(d):
    intel = d / "skl.bin"
    run_tool("emulate", "--platform", "skl", "--format", "A32u40_A4u32_B8_C8", "--output-kind",
             "i915-stream", "--faults", "report-lost", "--reports", "300", "--seed", "4",
             "--out", intel)
    rec = d / "tgl.rec"
    run_tool("emulate", "--platform", "tgl", "--format", "A32u40_A4u32_B8_C8", "--output-kind",
             "recording", "--reports", "300", "--seed", "5", "--out", rec)
    mali = d / "g78.hwpcmali"
    run_tool("mali", "emulate", "--gpu", "mali-g78", "--reader", "kinstr", "--samples", "40",
             "--seed", "6", "--out", mali)
    rd = d / "a630.rd"
    run_tool("adreno", "emulate", "--gpu", "a630", "--rounds", "3", "--seed", "7", "--out", rd)
    return str(intel), str(rec), str(mali), str(rd)


def _calls(d):
    intel, rec, mali, rd = _captures(d)
    with open(rd, "rb") as f:
        rd_bytes = f.read()
    return {
        "intel.decode": lambda: hwpc.intel.decode(intel, input_kind="i915-stream",
                                                  platform="skl", format="A32u40_A4u32_B8_C8"),
        "intel.decode summary": lambda: hwpc.intel.decode(rec, summary=True),
        "intel schema (dask meta)": lambda: hwpc.intel._schema(rec),
        "decode (vendor rule)": lambda: hwpc.decode(rec),
        "decode intel stream": lambda: hwpc.decode(intel, input_kind="i915-stream",
                                                   platform="skl", format="A32u40_A4u32_B8_C8"),
        "decode mali": lambda: hwpc.decode(mali),
        "decode adreno summary": lambda: hwpc.decode(rd, summary=True),
        "decode adreno bytes": lambda: hwpc.decode(rd_bytes, vendor="adreno"),
        "mali.decode": lambda: hwpc.mali.decode(mali),
        "mali.decode summary": lambda: hwpc.mali.decode(mali, summary=True),
        "mali schema": lambda: hwpc.mali._schema(mali),
        "adreno.queries": lambda: hwpc.adreno.queries(rd),
        "adreno.queries summary": lambda: hwpc.adreno.queries(rd, summary=True),
        "adreno.packets": lambda: hwpc.adreno.packets(rd),
        "identify": lambda: hwpc.identify(rec),
    }


def _same(a, b):
    if hasattr(a, "columns") and hasattr(a, "schema"):
        assert list(a.columns) == list(b.columns)
        for name in a.columns:
            x, y = a.columns[name], b.columns[name]
            assert np.array_equal(np.ma.getmaskarray(x), np.ma.getmaskarray(y)), name
            assert np.array_equal(np.ma.filled(x, 0), np.ma.filled(y, 0)), name
    else:
        assert repr(a) == repr(b)


@pytest.fixture(scope="module")
def calls(tmp_path_factory):
    return _calls(tmp_path_factory.mktemp("threads"))


@pytest.mark.parametrize("name", ["intel.decode", "intel.decode summary",
                                  "intel schema (dask meta)", "decode (vendor rule)",
                                  "decode intel stream", "decode mali", "decode adreno summary",
                                  "decode adreno bytes",
                                  "mali.decode", "mali.decode summary", "mali schema",
                                  "adreno.queries", "adreno.queries summary", "adreno.packets",
                                  "identify"])
def test_four_threads_get_what_one_gets(calls, name):
    call = calls[name]
    alone = call()
    stop = threading.Event()

    def churn():  # Python allocations while the decodes run without the GIL
        while not stop.is_set():
            [str(i) for i in range(200)]

    t = threading.Thread(target=churn)
    t.start()
    try:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: call(), range(8)))
    finally:
        stop.set()
        t.join()
    for r in results:
        _same(alone, r)
