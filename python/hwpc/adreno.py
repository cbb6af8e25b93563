"""Qualcomm Adreno command streams (.rd captures, hex dword text, raw dwords)."""

from . import _hwpc
from ._rows import Rows


def queries(source, *, format="auto", summary=False, _schema_only=False):
    """The query results of ``hwpc adreno --output csv`` as rows.

    ``rows.issues`` lists the problems and notes the tool prints on stderr
    (a damaged stream still gives its rows).
    """
    opts = {"format": format, "summary": bool(summary), "_schema_only": bool(_schema_only)}
    return Rows(_hwpc.adreno_queries(source, opts),
                summary=bool(summary))


def packets(source, *, format="auto"):
    """The packet listing of ``hwpc adreno`` as a DataFrame.

    One row per packet: ``offset`` (byte offset of its header in the input),
    ``gpu_address`` (0-based for raw dwords), ``depth`` (indirect-buffer
    level), ``type`` (4 or 7), ``id`` (opcode or register), ``count``,
    ``name``, ``fields`` (the decoded payload), ``event`` (the recognised
    queries that start at this packet, one a line). ``df.attrs["issues"]``: the
    problems found.
    """
    import pandas as pd

    raw = _hwpc.adreno_packets(source, {"format": format})
    issues = raw.pop("issues")
    df = pd.DataFrame(raw, copy=False)
    df.attrs["issues"] = issues
    return df
