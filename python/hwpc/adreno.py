"""Qualcomm Adreno command streams (.rd captures, hex dword text, raw dwords)."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

from . import _hwpc
from ._rows import Rows

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]


def _options(*, format: str = "auto", gpu: Optional[Union[str, int]] = None,
             summary: bool = False) -> Dict[str, Any]:
    return {"format": format, "gpu": None if gpu is None else str(gpu), "summary": bool(summary)}


def _own(opts: Dict[str, Any]) -> Dict[str, Any]:
    # hwpc.decode's binding (the library's hwpc::open) with the vendor given:
    # the options are checked before the input is read, as ``hwpc adreno`` does.
    return dict(opts, vendor="adreno", _own_call=True)


def queries(source: Source, *, format: str = "auto", gpu: Optional[Union[str, int]] = None,
            summary: bool = False) -> Rows:
    """The query results of ``hwpc adreno --output csv`` as rows.

    ``format``: "auto", "rd", "hex" or "bin". ``gpu``: the GPU (a name like
    "a530", a GPU id like 640, a chip id like "0x43050a01"), required when
    the input names none (hex text, raw dwords), as ``hwpc adreno --gpu``.
    Rows are decoded on A5XX input and on A6XX/A7XX .rd captures that name
    their GPU; other A6XX/A7XX input gives no rows and a note in
    ``rows.issues``, which lists the problems and notes the tool prints on
    stderr (a damaged stream still gives its rows). ``summary``: one row of
    the results' totals.
    """
    opts = _options(format=format, gpu=gpu, summary=summary)
    return Rows(_hwpc.decode(source, _own(opts)), summary=bool(summary))


def _schema(source: Source, **kw: Any) -> Rows:
    """No rows, the columns of queries(source, **kw) (hwpc.dask's meta)."""
    opts = _options(**kw)
    opts["_schema_only"] = True
    return Rows(_hwpc.decode(source, _own(opts)), summary=opts["summary"])


def packets(source: Source, *, format: str = "auto", gpu: Optional[Union[str, int]] = None):
    """The packet listing of ``hwpc adreno --packets --output csv`` as a DataFrame.

    The tool's columns in its order, typed: ``offset`` (byte offset of the
    packet's header in the input; in hex text, of its first digit),
    ``gpu_address``, ``depth`` (indirect-buffer level), ``group`` (draw-state
    group, <NA> outside one), ``pass`` (render mode), ``type`` (4 or 7),
    ``id`` (opcode or register), ``name``, ``count``, ``payload`` (the
    dwords in hex), ``event`` (CP_EVENT_WRITE's event, <NA> elsewhere) and
    ``event_name``. Names are the GPU generation's: an .rd capture names
    its GPU, ``gpu`` names it for hex and raw dwords (without one, numbers
    only). ``df.attrs["issues"]``: the problems found; ``df.attrs["gpu"]``:
    the GPU whose names apply (None when unknown).
    """
    import numpy as np
    import pandas as pd

    raw = _hwpc.adreno_packets(source, _options(format=format, gpu=gpu))
    issues = raw.pop("issues")
    gpu_name = raw.pop("gpu")
    for col in ("group", "event"):
        a = raw[col]
        raw[col] = pd.arrays.IntegerArray(a, a < 0)
    for col in ("pass", "name", "event_name"):
        raw[col] = pd.array(np.array(raw[col], dtype=object), dtype="string")
        raw[col][raw[col] == ""] = pd.NA
    df = pd.DataFrame(raw, copy=False)
    df.attrs["issues"] = issues
    df.attrs["gpu"] = gpu_name
    return df
