"""Arm Mali hardware-counter samples (kbase vinstr, kinstr_prfcnt)."""

from . import _hwpc
from ._rows import Rows


def decode(source, *, gpu=None, reader=None, l2_slices=None, core_mask=None,
           bus_width_bits=None, derived=None, per_instance=False, summary=False,
           core_index=None, names=None, max_clock_mhz=None, _schema_only=False):
    """The rows of ``hwpc mali`` for a capture of Mali samples.

    ``gpu``: a name from Arm's product list ("mali-g78", "G72") or a GPU_ID
    (int); required unless a capture header names it. ``reader``: "vinstr"
    (default) or "kinstr". ``l2_slices`` and ``core_mask``: the layout
    (a capture header gives them). ``bus_width_bits`` adds the derived
    counters (``derived``: "guide" on the Mali-G72, else "database").
    ``per_instance`` adds each L2 slice's and core's counters.
    ``names``: "hardware" (default, GPU_ACTIVE) or "streamline"
    (MaliGPUActiveCy) counter column names. ``max_clock_mhz``: the GPU's
    highest clock, for the plausibility check of GPU_ACTIVE. Values that
    break a physical bound are in ``rows.warnings`` (the tool's stderr
    warnings; ``rows.warnings_total`` counts them all).
    """
    opts = {
        "gpu": gpu, "reader": reader, "l2_slices": l2_slices, "core_mask": core_mask,
        "bus_width_bits": bus_width_bits, "derived": derived,
        "per_instance": bool(per_instance), "summary": bool(summary), "core_index": core_index,
        "names": names, "max_clock_mhz": max_clock_mhz,
        "_schema_only": bool(_schema_only),  # internal: hwpc.dask's meta
    }
    return Rows(_hwpc.mali_decode(source, opts), summary=bool(summary))
