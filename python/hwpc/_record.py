"""Live recording: hwpc.intel.record and hwpc.mali.record (``hwpc record``).

A recording is a context manager; iterating over it yields ``hwpc.Rows``
batches (the rows gathered since the last one, the same columns as
hwpc.intel.decode / hwpc.mali.decode give for the file) until the duration
has passed or ``stop()`` is called. Leaving the ``with`` block ends the
session the way Ctrl-C ends ``hwpc record``: the reports still in the
kernel's buffer are read and, with ``out``, the file is complete.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterator, Optional, Union

from . import _hwpc
from ._rows import Rows

PathLike = Union[str, "os.PathLike[str]"]


class Recording:
    """A live session; see hwpc.intel.record and hwpc.mali.record.

    ``with rec:`` opens the device and starts (a refusal raises ``OSError``
    with the message ``hwpc record`` prints: what to change); ``for rows in
    rec`` yields ``Rows`` batches; ``rows.accounting`` is where every record
    so far went (the last batch's: the whole recording's). ``stop()`` asks
    the session to end (the batches that follow hold what the kernel still
    had). ``counts`` is what the kernel handed out: reports or samples and
    losses.
    """

    def __init__(self, vendor: str, options: Dict[str, Any]) -> None:
        self._session = _hwpc.LiveSession(vendor, options)
        self._entered = False

    def __enter__(self) -> "Recording":
        self._session.start()
        self._entered = True
        return self

    def __exit__(self, *exc: Any) -> None:
        self._session.stop()
        # Drain, so that the session ends on its own terms (and its errors,
        # if the block did not raise one, are seen).
        if exc[0] is None:
            for _ in self:
                pass

    def __iter__(self) -> Iterator[Rows]:
        if not self._entered:
            raise ValueError("iterate inside `with hwpc.<vendor>.record(...) as rec:`")
        while True:
            raw = self._session.next_batch()
            if raw is None:
                return
            yield Rows(raw)

    def stop(self) -> None:
        """End the session: the remaining batches hold what the kernel still had."""
        self._session.stop()

    @property
    def counts(self) -> Dict[str, Any]:
        """What the kernel handed out: ``samples`` (reports or samples),
        ``report_lost``, ``buffer_lost`` (Intel), ``overflow`` (Mali samples
        after a full ring), ``bytes`` written, ``done``, and ``summary``: the
        lines ``hwpc record`` prints for them (once the recording is done)."""
        return dict(self._session.counts())


def intel_record(*, device: Optional[str] = None, metrics: Optional[PathLike] = None,
                 set: Optional[str] = None, set_id: Optional[int] = None,
                 format: Optional[str] = None, period: Optional[float] = None,
                 exponent: Optional[int] = None, duration: Optional[float] = None,
                 ctx: Optional[int] = None, out: Optional[PathLike] = None) -> Recording:
    """Record an i915 perf OA stream live (``hwpc record intel``).

    ``device``: the render node (default ``/dev/dri/renderD128``). The
    metric set: ``metrics`` (an ``oa-<platform>.xml`` path) with ``set``
    (its symbol name; the kernel's copy is found by its GUID, or the set is
    uploaded and removed at the end), or ``set_id`` (the kernel's config
    id, ``set`` then only names it). ``format``: the report format (default:
    the platform's A/B/C layout). ``period`` (seconds; default 0.001: the
    nearest OA exponent) or ``exponent`` (0..31). ``duration`` (seconds;
    default: until ``stop()`` or the end of the ``with`` block). ``ctx``: one
    GEM context. ``out``: also write the recording ``hwpc decode`` reads.

    Batches hold the columns hwpc.intel.decode gives for the file: with
    ``metrics`` and ``set``, the set's metric columns too, on the device the
    recording describes (as ``hwpc.intel.decode(out, metrics=..., set=...)``;
    with ``set_id``, counters only). Usage errors raise ``ValueError``;
    refusals ``OSError``.
    """
    opts = {
        "device": device, "metrics": None if metrics is None else os.fspath(metrics),
        "set": set, "set_id": set_id, "format": format, "period": period,
        "exponent": exponent, "duration": duration, "ctx": ctx,
        "out": None if out is None else os.fspath(out),
    }
    return Recording("intel", {k: v for k, v in opts.items() if v is not None})


def mali_record(*, device: Optional[str] = None, period: Optional[float] = None,
                duration: Optional[float] = None, per_instance: bool = False,
                names: Optional[str] = None, out: Optional[PathLike] = None) -> Recording:
    """Record Arm Mali counters live through kbase's kinstr_prfcnt (``hwpc record mali``).

    ``device``: the kbase node (default ``/dev/mali0``). ``period``: seconds
    between samples (default 0.001). ``duration`` (seconds; default: until
    ``stop()`` or the end of the ``with`` block). ``per_instance`` adds each
    L2 slice's and shader core's columns; ``names``: "hardware" (default) or
    "streamline" column names. ``out``: also write the capture file
    ``hwpc mali`` reads. Batches hold the columns hwpc.mali.decode gives
    for that file. A kernel without kinstr_prfcnt is refused (``OSError``).
    """
    opts = {
        "device": device, "period": period, "duration": duration,
        "per_instance": bool(per_instance), "names": names,
        "out": None if out is None else os.fspath(out),
    }
    return Recording("mali", {k: v for k, v in opts.items() if v is not None})
