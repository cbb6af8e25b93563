"""hwpc.dask on a distributed.LocalCluster: two worker processes on 127.0.0.1."""

import numpy as np
import pandas as pd
import pytest

import hwpc
import hwpc.dask
from conftest import run_tool

distributed = pytest.importorskip("distributed")

KW = {"platform": "hsw", "format": "A45_B8_C8"}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    d = tmp_path_factory.mktemp("fleet")
    paths = []
    for seed in range(1, 9):
        p = d / ("capture-%d.raw" % seed)
        run_tool("emulate", "--platform", "hsw", "--format", "A45_B8_C8", "--output-kind", "raw",
                 "--reports", str(40 + 10 * seed), "--seed", seed, "--faults", "tail-ahead",
                 "--out", p)
        paths.append(str(p))
    return d, paths


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None,
                                       silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _single(paths):
    frames = []
    for p in paths:
        df = hwpc.intel.decode(p, **KW).to_pandas()
        df.insert(0, "capture", p)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _same(got, want):
    got = got.reset_index(drop=True)
    assert list(got.columns) == list(want.columns)
    for c in want.columns:
        if c in ("capture", "reason"):
            assert list(got[c].astype(str)) == list(want[c].astype(str)), c
        else:
            pd.testing.assert_series_equal(got[c], want[c], check_names=False), c


def test_eight_captures_equal_their_single_decodes(client, fleet):
    folder, paths = fleet
    ddf = hwpc.dask.read_captures(str(folder / "*.raw"), **KW)
    assert ddf.npartitions == 8
    # The meta is the schema's: the columns and dtypes of a decode.
    one = hwpc.intel.decode(paths[0], **KW).to_pandas()
    assert list(ddf.columns) == ["capture"] + list(one.columns)
    assert str(ddf.dtypes["A0"]) == "UInt64"
    got = ddf.compute()
    _same(got, _single(paths))
    # The rows were decoded on both workers.
    assert len(client.scheduler_info()["workers"]) == 2


def test_a_failing_capture_is_reported_with_its_path_and_offset(client, fleet, tmp_path):
    _, paths = fleet
    bad = tmp_path / "bad.raw"
    bad.write_bytes(open(paths[0], "rb").read()[:1000])  # not a whole number of reports
    mixed = paths[:3] + [str(bad)] + paths[3:5]
    r = run_tool("decode", bad, "--platform", "hsw", "--format", "A45_B8_C8", check=False)
    with pytest.raises(hwpc.DecodeError) as e:
        hwpc.dask.read_captures(mixed, **KW).compute()
    assert e.value.path == str(bad) and str(bad) in str(e.value)
    assert e.value.offset is not None and ("byte offset %d" % e.value.offset) in r.stderr
    # errors="skip": the others are all there.
    got = hwpc.dask.read_captures(mixed, errors="skip", **KW).compute()
    _same(got, _single(paths[:3] + paths[3:5]))
    # summaries: one row per capture, the failure with its error, the others' totals.
    s = hwpc.dask.summaries(mixed, **KW)
    assert list(s["capture"]) == mixed
    assert s["error"].notna().tolist() == [False, False, False, True, False, False]
    assert s.loc[3, "error_offset"] == e.value.offset
    for i, p in enumerate(mixed):
        if p == str(bad):
            continue
        t = hwpc.intel.decode(p, summary=True, **KW)
        assert s.loc[i, "intervals"] == t.columns["intervals"][0]
        assert s.loc[i, "A0"] == t.columns["A0"][0]


def test_mali_names_reach_every_partition(client, tmp_path):
    # The decoders' options pass through unchanged: Streamline names on a Mali fleet.
    paths = []
    for seed in (1, 2):
        p = tmp_path / ("mali-%d.hwpcmali" % seed)
        run_tool("mali", "emulate", "--gpu", "mali-g72", "--l2-slices", 2, "--core-mask", "0xb",
                 "--samples", 20, "--seed", seed, "--out", p)
        paths.append(str(p))
    got = hwpc.dask.read_captures(paths, vendor="mali", names="streamline").compute()
    assert "MaliGPUActiveCy" in got.columns and "GPU_ACTIVE" not in got.columns
    want = np.concatenate([hwpc.mali.decode(p, names="streamline").columns["MaliGPUActiveCy"]
                           for p in paths])
    np.testing.assert_array_equal(got["MaliGPUActiveCy"].to_numpy(dtype=np.uint64), want)


def test_to_perfetto_writes_a_gpu_per_capture(client, fleet, tmp_path):
    import os
    import re
    import shutil
    import subprocess

    _, paths = fleet
    out = tmp_path / "fleet.pftrace"
    assert hwpc.dask.to_perfetto(paths, out, **KW) == out
    proto = os.path.join(os.environ.get("HWPC_SHARED_DIR", "../shared"), "data", "perfetto")
    if shutil.which("protoc") is None or not os.path.exists(os.path.join(proto, "perfetto_trace.proto")):
        pytest.skip("protoc or ../shared/data/perfetto is absent")
    with open(out, "rb") as f:
        text = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I", proto,
                               "perfetto_trace.proto"], stdin=f, capture_output=True,
                              check=True).stdout.decode()
    packets = text.split("\npacket {")
    # Capture k: GPU k, named by its path, on sequence k + 1.
    assert sorted({int(g) for g in re.findall(r"\n      gpu_id: (\d+)", text)}) == list(range(8))
    assert re.findall(r'name: "hwpc intel hsw A45_B8_C8: ([^"]*)"', text) == paths
    for k, p in enumerate(paths):
        rows = hwpc.intel.decode(p, **KW)
        keep = ~rows.columns["lost"] if "lost" in rows.columns else np.ones(len(rows), bool)
        counters = [n for n, d in rows.schema["columns"].items() if d["kind"] == "counter"]
        want = np.stack([np.ma.getdata(rows.columns[n])[keep] for n in counters], axis=1)
        got, times = [], []
        for pk in packets:
            if "trusted_packet_sequence_id: %d\n" % (k + 1) not in pk:
                continue
            values = [int(v) for v in re.findall(r"int_value: (\d+)", pk)]
            if values:
                got.append(values)
                times.append(int(re.search(r"\n  timestamp: (\d+)", pk).group(1)))
        # Every row's values in one packet at its end (12.5 MHz: 80 ns a tick).
        assert np.array_equal(np.array(got, dtype=np.uint64), want)
        # The CSV's timestamp is the interval's end (its later report's TIME_STAMP).
        assert times == list(np.ma.getdata(rows.columns["timestamp"])[keep] * 80)
