"""Intel OA captures: raw reports, i915 and Xe streams, recordings."""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

from . import _hwpc
from ._record import Recording, intel_record as record  # noqa: F401 (hwpc record intel)
from ._rows import Rows

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]


def _options(*, platform: Optional[str] = None, format: Optional[str] = None,
             input_kind: Optional[str] = None, metrics: Optional[Union[str, os.PathLike]] = None,
             set: Optional[str] = None, device_vars: Optional[Mapping[str, Union[int, float]]] = None,
             arithmetic: Optional[str] = None, definitions: Optional[str] = None,
             context: Optional[int] = None,
             summary: bool = False, xe_losses: Optional[Iterable[Tuple[int, int]]] = None,
             unverified_layouts: bool = False) -> Dict[str, Any]:
    return {
        "platform": platform, "format": format, "input_kind": input_kind,
        "metrics": None if metrics is None else os.fspath(metrics), "set": set,
        "device_vars": dict(device_vars) if device_vars else None,
        "arithmetic": arithmetic, "definitions": definitions, "context": context,
        "summary": bool(summary), "unverified_layouts": bool(unverified_layouts),
        "xe_losses": [tuple(x) for x in xe_losses] if xe_losses else None,
    }


def _own(opts: Dict[str, Any]) -> Dict[str, Any]:
    # hwpc.decode's binding (the library's hwpc::open) with the vendor given:
    # the options are checked before the input is read, as ``hwpc decode`` does.
    return dict(opts, vendor="intel", _own_call=True)


def decode(source: Source, *, platform: Optional[str] = None, format: Optional[str] = None,
           input_kind: Optional[str] = None, metrics: Optional[Union[str, os.PathLike]] = None,
           set: Optional[str] = None, device_vars: Optional[Mapping[str, Union[int, float]]] = None,
           arithmetic: Optional[str] = None, definitions: Optional[str] = None,
           context: Optional[int] = None,
           summary: bool = False, xe_losses: Optional[Iterable[Tuple[int, int]]] = None,
           unverified_layouts: bool = False) -> Rows:
    """The rows of ``hwpc decode`` for an OA capture.

    ``source``: a path (memory-mapped), bytes, a memoryview or a NumPy uint8
    array (read in place). A recording needs no ``platform`` or ``format``.
    ``input_kind``: "raw", "i915-stream", "xe-stream" or "recording".
    ``metrics``: a metric XML path; ``set``: a set's symbol (a recording
    names its own); ``device_vars``: {name: number} overrides;
    ``arithmetic``: "mdapi" (default) or "igt", how metric formulas compute
    (``hwpc decode --arithmetic``). ``definitions``: "file", "mdapi"
    (default) or "newer", whether a set metrics-discovery also defines
    computes from the file's formulas or from metrics-discovery's
    (``hwpc decode --definitions``; "mdapi" and "newer" need the "mdapi"
    arithmetic). ``context`` keeps one context's
    intervals (Gen8+). ``summary``: one row of totals (``hwpc decode
    --summary``). ``xe_losses``: [(offset, status)] for an Xe stream.
    ``unverified_layouts``: decode an Xe layout no capture has confirmed.
    """
    opts = _options(platform=platform, format=format, input_kind=input_kind, metrics=metrics,
                    set=set, device_vars=device_vars, arithmetic=arithmetic,
                    definitions=definitions, context=context,
                    summary=summary, xe_losses=xe_losses, unverified_layouts=unverified_layouts)
    return Rows(_hwpc.decode(source, _own(opts)), summary=bool(summary))


def _schema(source: Source, **kw: Any) -> Rows:
    """No rows, the columns of decode(source, **kw): the input's header is read
    (a recording's DEVICE_INFO), its reports are not (hwpc.dask's meta)."""
    opts = _options(**kw)
    opts["_schema_only"] = True
    return Rows(_hwpc.decode(source, _own(opts)), summary=opts["summary"])


def _measure(source: Source, where: str, **kw: Any) -> int:
    """For bench/python_bench.py: decode and evaluate, the rows going nowhere
    (``where="discard"``) or into C++ columns freed there (``"store"``)."""
    opts = _options(**kw)
    opts["_discard" if where == "discard" else "_store_only"] = True
    return _hwpc.decode(source, _own(opts))["values"]
