"""hwpc: GPU performance-counter captures (Intel OA, Arm Mali, Qualcomm Adreno)
as NumPy/pandas columns, and fleets of captures on Dask.

    import hwpc
    rows = hwpc.intel.decode("capture.i915", metrics="oa-tgl.xml")
    df = rows.to_pandas()

The decoding is the hwpc C++ library's (the extension module ``hwpc._hwpc``):
the same rows, columns and messages as the ``hwpc`` tool. docs/python.md.
"""

from . import _hwpc
from ._errors import DecodeError
from ._rows import Rows
from . import intel, mali, adreno  # noqa: E402

__version__ = _hwpc.version
__all__ = ["DecodeError", "Rows", "intel", "mali", "adreno", "formats", "eval", "identify",
           "decode", "__version__"]


def formats():
    """Every Intel OA report format hwpc decodes (``hwpc formats --json``), one row each."""
    import pandas as pd

    return pd.DataFrame(_hwpc.formats())


def eval(expr, vars=None, syntax="rpn"):  # noqa: A001 - the tool's command name
    """The value of a formula (``hwpc eval``): an int (u64) or a float.

    ``vars`` binds names to numbers (int: u64, float: double). Errors raise
    DecodeError with ``.column`` set.
    """
    return _hwpc.eval(expr, dict(vars or {}), syntax)


def identify(source):
    """What a capture is, from its bytes (the library's ``identify``): a dict with
    ``vendor`` ("intel", "mali", "adreno" or "unknown"), ``input_kind``,
    ``device`` (the platform or GPU the bytes name; "" when none) and ``why``
    (what in the bytes says so, or why nothing does)."""
    return dict(_hwpc.identify(source))


# The keywords of hwpc.decode: every vendor's (each vendor's call takes its own).
_DECODE_KEYWORDS = frozenset((
    "vendor", "summary", "format", "gpu",
    "platform", "input_kind", "metrics", "set", "device_vars", "arithmetic", "definitions",
    "context", "xe_losses", "unverified_layouts",
    "reader", "l2_slices", "core_mask", "bus_width_bits", "derived", "per_instance",
    "core_index", "names", "max_clock_mhz",
))


def decode(source, **options):
    """The rows of any capture hwpc can recognise: ``hwpc decode FILE``.

    The capture is opened by the library's ``hwpc::open`` (include/hwpc/
    pipeline/open.hpp), as ``hwpc decode`` and ``hwpc report`` open it, and
    the vendor comes from its one vendor rule: ``vendor`` when given
    ("intel", "mali" or "adreno"), else what the bytes prove (an Intel
    recording, a Mali capture file, an Adreno .rd, gzip or hex text) and
    which options are given (``platform`` and ``format`` read raw Intel
    reports and streams, a Mali option names Mali). ``options`` are the
    keywords of ``hwpc.intel.decode``, ``hwpc.mali.decode`` and
    ``hwpc.adreno.queries``, and the rows are the ones those calls give; an
    option of another vendor, or input nothing names, is a ValueError that
    says why.
    """
    unknown = sorted(set(options) - _DECODE_KEYWORDS)
    if unknown:
        raise TypeError("decode() got an unexpected keyword argument %r" % unknown[0])
    opts = dict(options)
    if opts.get("metrics") is not None:
        import os

        opts["metrics"] = os.fspath(opts["metrics"])
    for key, as_given in (("device_vars", dict), ("xe_losses", lambda x: [tuple(t) for t in x])):
        opts[key] = as_given(opts[key]) if opts.get(key) else None
    for key in ("summary", "unverified_layouts", "per_instance"):
        opts[key] = bool(opts.get(key))
    return Rows(_hwpc.decode(source, opts), summary=bool(options.get("summary")))


def __getattr__(name):
    # hwpc.dask imports dask only when asked for.
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError("module 'hwpc' has no attribute %r" % name)
