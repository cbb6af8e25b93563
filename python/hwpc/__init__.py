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


def decode(source, **options):
    """The rows of any capture hwpc can recognise: ``hwpc decode FILE``.

    The vendor comes from the library's one vendor rule (include/hwpc/
    pipeline/open.hpp, as for ``hwpc decode`` and ``hwpc report``): what the
    bytes prove (an Intel recording, a Mali capture file, an Adreno .rd, gzip
    or hex text) and which options are given (``platform`` and ``format`` read
    raw Intel reports and streams, a Mali option names Mali). A Mali capture
    is read by ``hwpc.mali.decode``, an Adreno one by ``hwpc.adreno.queries``,
    an Intel one by ``hwpc.intel.decode``, each with ``options``; an option of
    another vendor, or input nothing names, is a ValueError that says why.
    """
    vendor = _hwpc.vendor_of(source, options)
    options.pop("vendor", None)
    if vendor == "intel":
        return intel.decode(source, **options)
    if vendor == "mali":
        return mali.decode(source, **options)
    return adreno.queries(source, **options)


def __getattr__(name):
    # hwpc.dask imports dask only when asked for.
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError("module 'hwpc' has no attribute %r" % name)
