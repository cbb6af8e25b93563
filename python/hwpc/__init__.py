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
__all__ = ["DecodeError", "Rows", "intel", "mali", "adreno", "formats", "eval", "__version__"]


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


def __getattr__(name):
    # hwpc.dask imports dask only when asked for.
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError("module 'hwpc' has no attribute %r" % name)
