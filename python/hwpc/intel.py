"""Intel OA captures: raw reports, i915 and Xe streams, recordings."""

from . import _hwpc
from ._rows import Rows


def decode(source, *, platform=None, format=None, input_kind=None, metrics=None, set=None,
           device_vars=None, arithmetic=None, context=None, summary=False, xe_losses=None,
           unverified_layouts=False, _schema_only=False, _discard=False, _store_only=False):
    """The rows of ``hwpc decode`` for an OA capture.

    ``source``: a path (memory-mapped), bytes, a memoryview or a NumPy uint8
    array (read in place). A recording needs no ``platform`` or ``format``.
    ``input_kind``: "raw", "i915-stream", "xe-stream" or "recording".
    ``metrics``: a metric XML path; ``set``: a set's symbol (a recording
    names its own); ``device_vars``: {name: number} overrides;
    ``arithmetic``: "mdapi" (default) or "igt", how metric formulas compute
    (``hwpc decode --arithmetic``). ``context``
    keeps one context's intervals (Gen8+). ``summary``: one row of totals.
    ``xe_losses``: [(offset, status)] for an Xe stream.
    """
    opts = {
        "platform": platform, "format": format, "input_kind": input_kind,
        "metrics": None if metrics is None else str(metrics), "set": set,
        "device_vars": dict(device_vars) if device_vars else None,
        "arithmetic": arithmetic, "context": context,
        "summary": bool(summary), "unverified_layouts": bool(unverified_layouts),
        "xe_losses": [tuple(x) for x in xe_losses] if xe_losses else None,
        # Internal: the schema alone (hwpc.dask's meta); for benchmarks, decode and keep
        # nothing, or fill the columns in C++ and drop them there.
        "_schema_only": bool(_schema_only), "_discard": bool(_discard),
        "_store_only": bool(_store_only),
    }
    if _discard or _store_only:
        return _hwpc.intel_decode(source, opts)["values"]
    return Rows(_hwpc.intel_decode(source, opts), summary=bool(summary))
