"""Fleets of captures on Dask: one partition per capture, decoded on the workers.

    from distributed import Client
    client = Client("tcp://scheduler:8786")      # or LocalCluster(); any current Client
    df = hwpc.dask.read_captures("/captures/*.rec", metrics="oa-tglgt2.xml")
    totals = hwpc.dask.summaries("/captures/*.rec")
    hwpc.dask.to_perfetto("/captures/*.rec", "fleet.pftrace")   # one trace, a GPU per capture

Every worker opens the captures by path (a shared file system, or any path
the workers see), so only paths travel to the workers and only columns come
back. docs/python.md.
"""

import glob
import os
import uuid

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from . import _hwpc, adreno, intel, mali
from ._errors import DecodeError

_DECODERS = {"intel": intel.decode, "mali": mali.decode, "adreno": adreno.queries}
_SCHEMAS = {"intel": intel._schema, "mali": mali._schema, "adreno": adreno._schema}


def capture_paths(paths):
    """The captures named: a list of paths, a glob, or a folder (its files, sorted)."""
    if isinstance(paths, (str, os.PathLike)):
        p = os.fspath(paths)
        if os.path.isdir(p):
            out = sorted(os.path.join(p, f) for f in os.listdir(p)
                         if os.path.isfile(os.path.join(p, f)))
        elif glob.has_magic(p):
            out = sorted(glob.glob(p))
        else:
            out = [p]
    else:
        out = [os.fspath(p) for p in paths]
    if not out:
        raise ValueError("no capture matches %r" % (paths,))
    return out


def _decoder(vendor):
    try:
        return _DECODERS[vendor]
    except KeyError:
        raise ValueError("vendor must be one of %s, not %r" % (sorted(_DECODERS), vendor))


def _with_capture(df, path, captures):
    df.insert(0, "capture", pd.Categorical([path] * len(df), categories=captures))
    return df


def _read_one(path, vendor, options, captures, empty):
    """One partition: the capture's rows, and its path in the `capture` column.

    `empty`: the frame a failed capture gives (errors="skip"), else None.
    """
    try:
        df = _decoder(vendor)(path, **options).to_pandas()
    except DecodeError as e:
        if empty is None:
            e.path = path
            raise
        df = empty.copy()
    return _with_capture(df, path, captures)


def read_captures(paths, *, vendor="intel", errors="raise", **decode_options):
    """A dask DataFrame of the rows of every capture, one partition per capture.

    ``vendor``: "intel" (hwpc.intel.decode), "mali" (hwpc.mali.decode) or
    "adreno" (hwpc.adreno.queries); ``decode_options`` go to it unchanged.
    Every capture of one read must have the same columns (same format and
    metric set, same GPU); the meta is the first capture's schema, read
    without decoding a row. ``errors="raise"`` (default): a capture that
    fails raises hwpc.DecodeError at compute time, with its path (``.path``)
    and byte offset (``.offset``); ``"skip"``: it gives no rows (see
    summaries() for which captures failed and why).
    """
    if errors not in ("raise", "skip"):
        raise ValueError("errors must be 'raise' or 'skip'")
    captures = capture_paths(paths)
    _decoder(vendor)
    empty = _SCHEMAS[vendor](captures[0], **decode_options).to_pandas()
    meta = _with_capture(empty.copy(), captures[0], captures)
    meta["reason"] = meta["reason"].cat.set_categories([])  # each capture has its own
    meta = dd.utils.clear_known_categories(meta, cols=["reason"])
    # Keys unique to this call: a path names a file whose contents may change,
    # so results of an earlier read (still held by the scheduler) are not reused.
    return dd.from_map(_read_one, captures, args=[vendor, decode_options, captures, empty if errors == "skip" else None],
                       meta=meta, enforce_metadata=False, label="hwpc-read",
                       token=uuid.uuid4().hex)


def _summary_one(path, vendor, options):
    try:
        t = _decoder(vendor)(path, **options, summary=True)
    except DecodeError as e:
        return {"capture": path, "error": str(e), "error_offset": e.offset}
    row = {"capture": path, "error": None, "error_offset": None}
    for name in t.columns:
        row[name] = t.first(name)
    return row


def summaries(paths, *, vendor="intel", **decode_options):
    """One row of totals per capture (``summary=True``), computed on the workers.

    Columns: ``capture``, ``error`` (the DecodeError's message, None when
    the capture decoded), ``error_offset``, then the totals of
    ``hwpc decode --summary`` (metrics of the totals with a metric set).
    A capture that fails to decode keeps its row, with the error; the others
    are not lost.
    """
    captures = capture_paths(paths)
    _decoder(vendor)
    tasks = [dask.delayed(_summary_one, pure=False)(p, vendor, decode_options) for p in captures]
    rows = dask.compute(*tasks)
    df = pd.DataFrame(list(rows))
    df["error_offset"] = df["error_offset"].astype("Int64")
    return df


_VENDOR_NAMES = {"intel": "Intel", "mali": "Arm", "adreno": "Qualcomm"}


def _perfetto_part(path, vendor, options):
    """One capture's columns as the fleet writer takes them (decoded on a worker)."""
    try:
        rows = _decoder(vendor)(path, **options)
    except DecodeError as e:
        e.path = path
        raise
    cols = rows.schema["columns"]
    # An empty cell (masked) is a gap: NaN for a metric; a counter is empty only
    # on a lost row, which the writer skips by `lost`.
    plain = lambda a, kind: (np.ma.filled(a.astype(np.float64), np.nan)  # noqa: E731
                             if kind == "metric" else np.ma.getdata(a))
    pick = lambda kind: [(n, d["units"], plain(rows.columns[n], kind))  # noqa: E731
                         for n, d in cols.items() if d["kind"] == kind]
    begin, end = rows._interval
    return {
        "name": "hwpc %s %s: %s" % (vendor, rows.schema["source"], path),
        "vendor": _VENDOR_NAMES[vendor],
        "source": rows.schema["source"],
        "clock": rows.schema["clock"],
        "ticks_per_second": rows.schema["ticks_per_second"],
        "begin": begin,
        "end": end,
        "counters": pick("counter"),
        "metrics": pick("metric"),
        "lost": rows.columns.get("lost"),
    }


def to_perfetto(paths, out, *, vendor="intel", **decode_options):
    """One Perfetto trace of every capture, each its own GPU; returns ``out``.

    The captures are decoded on the workers (as read_captures() does) and
    written on the client by the library's fleet writer: capture k is GPU k
    with its own packet sequence, interned counter descriptor and GpuInfo
    name ("hwpc <vendor> <source>: <path>"), so Perfetto's UI shows one
    "<name> Counters" group per capture under GPU (docs/perfetto.md).
    Captures may differ in format, metric set or GPU. A capture that fails
    raises hwpc.DecodeError with its path.
    """
    captures = capture_paths(paths)
    _decoder(vendor)
    tasks = [dask.delayed(_perfetto_part, pure=False)(p, vendor, decode_options)
             for p in captures]
    parts = dask.compute(*tasks)
    _hwpc.perfetto_fleet(os.fspath(out), list(parts))
    return out
