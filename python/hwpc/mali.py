"""Arm Mali hardware-counter samples (kbase vinstr, kinstr_prfcnt)."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

from . import _hwpc
from ._record import Recording, mali_record as record  # noqa: F401 (hwpc record mali)
from ._rows import Rows

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]


def _options(*, gpu: Optional[Union[str, int]] = None, reader: Optional[str] = None,
             l2_slices: Optional[int] = None, core_mask: Optional[int] = None,
             bus_width_bits: Optional[int] = None, derived: Optional[str] = None,
             per_instance: bool = False, summary: bool = False, core_index: Optional[str] = None,
             names: Optional[str] = None, max_clock_mhz: Optional[int] = None) -> Dict[str, Any]:
    return {
        "gpu": gpu, "reader": reader, "l2_slices": l2_slices, "core_mask": core_mask,
        "bus_width_bits": bus_width_bits, "derived": derived,
        "per_instance": bool(per_instance), "summary": bool(summary), "core_index": core_index,
        "names": names, "max_clock_mhz": max_clock_mhz,
    }


def _own(opts: Dict[str, Any]) -> Dict[str, Any]:
    # hwpc.decode's binding (the library's hwpc::open) with the vendor given:
    # the options are checked before the input is read, as ``hwpc mali`` does.
    return dict(opts, vendor="mali", _own_call=True)


def decode(source: Source, *, gpu: Optional[Union[str, int]] = None, reader: Optional[str] = None,
           l2_slices: Optional[int] = None, core_mask: Optional[int] = None,
           bus_width_bits: Optional[int] = None, derived: Optional[str] = None,
           per_instance: bool = False, summary: bool = False, core_index: Optional[str] = None,
           names: Optional[str] = None, max_clock_mhz: Optional[int] = None) -> Rows:
    """The rows of ``hwpc mali`` for a capture of Mali samples.

    ``gpu``: a name from Arm's product list ("mali-g78", "G72") or a GPU_ID
    (int); required unless a capture header names it. ``reader``: "vinstr"
    (default) or "kinstr". ``l2_slices`` and ``core_mask``: the layout
    (a capture header gives them). ``bus_width_bits`` adds the derived
    counters (``derived``: "guide" on the Mali-G72, else "database").
    ``per_instance`` adds each L2 slice's and core's counters.
    ``core_index``: "dense" or "sparse" numbering of kinstr_prfcnt's core
    blocks (kinstr only, refused with vinstr as the tool refuses it).
    ``names``: "hardware" (default, GPU_ACTIVE) or "streamline"
    (MaliGPUActiveCy) counter column names. ``max_clock_mhz``: the GPU's
    highest clock, for the plausibility check of GPU_ACTIVE. Values that
    break a physical bound are in ``rows.warnings`` (the tool's stderr
    warnings; ``rows.warnings_total`` counts them all). The options are
    checked and the capture opened by the library, as for the tool
    (include/hwpc/pipeline/mali_capture.hpp).
    """
    opts = _options(gpu=gpu, reader=reader, l2_slices=l2_slices, core_mask=core_mask,
                    bus_width_bits=bus_width_bits, derived=derived, per_instance=per_instance,
                    summary=summary, core_index=core_index, names=names,
                    max_clock_mhz=max_clock_mhz)
    return Rows(_hwpc.decode(source, _own(opts)), summary=bool(summary))


def _schema(source: Source, **kw: Any) -> Rows:
    """No rows, the columns of decode(source, **kw) (hwpc.dask's meta)."""
    opts = _options(**kw)
    opts["_schema_only"] = True
    return Rows(_hwpc.decode(source, _own(opts)), summary=opts["summary"])
