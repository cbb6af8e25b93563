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

    The vendor comes from ``identify(source)``: an Intel recording goes to
    ``hwpc.intel.decode``, a Mali capture file to ``hwpc.mali.decode``, an
    Adreno capture (.rd, gzip, hex text) to ``hwpc.adreno.queries``, each with
    ``options``. Input that names nothing (raw OA reports, streams) is Intel's
    when ``platform`` and ``format`` are given; otherwise a ValueError says
    which call reads it.
    """
    kind = identify(source)
    vendor = kind["vendor"]
    if vendor == "unknown" and "platform" in options and "format" in options:
        vendor = "intel"
    if vendor == "intel":
        return intel.decode(source, **options)
    if vendor == "mali":
        return mali.decode(source, **options)
    if vendor == "adreno":
        return adreno.queries(source, **options)
    raise ValueError("cannot tell what the capture is: " + kind["why"])


def __getattr__(name):
    # hwpc.dask imports dask only when asked for.
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError("module 'hwpc' has no attribute %r" % name)
