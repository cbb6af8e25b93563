"""hwpc.Rows: one capture's rows as NumPy columns (the row contract)."""

import numpy as np

# Columns every row has, whatever the vendor, in the CSV's order (output/csv.hpp):
# (name, units, description).
_FIXED_BEFORE = (
    ("report", "", "0-based index of the report (sample, result) that ends the row"),
    ("offset", "bytes", "byte offset of that report's record in the input"),
    ("timestamp", "ticks", "the end of the row's interval on the schema's clock; missing on a loss"),
)
_FIXED_AFTER = (
    ("reason", "", "why the report was written; the loss kind on a loss row"),
    ("ctx_id", "", "the context the interval ran in; missing when the source cannot tell"),
)
_LOST = ("lost", "", "reports are missing here: no value spans a loss")
_TOTALS_BEFORE = (
    ("intervals", "", "rows totalled (loss rows excluded)"),
    ("elapsed_ticks", "ticks", "sum of the intervals' lengths on the schema's clock"),
)
_TOTALS_AFTER = (
    ("reports", "", "valid reports"),
    ("skipped_zero", "", "reports never written (RPT_ID 0), skipped"),
    ("discontinuities", "", "losses in the input"),
)


def _clock_units(schema):
    return "ns" if schema["clock"] == "cpu_ns" else "ticks"


def _masked(values, mask):
    """`values` as a masked array: `mask` (bool array, or None for no cell
    missing) marks the cells the CSV leaves empty. The mask may be shared
    between columns (a loss row's counters): NumPy copies it before a write."""
    if mask is None:
        return np.ma.MaskedArray(values, mask=np.ma.nomask, copy=False)
    return np.ma.MaskedArray(values, mask=mask, copy=False, keep_mask=False)


def _pandas_array(a, mask_row):
    """A masked column as pandas' nullable array (missing cells are pd.NA).

    `mask_row`: a zeroed bool array of the column's length, its own (pandas
    writes missing cells into a mask in place), which gets the column's mask.
    """
    import pandas as pd

    values = np.ma.getdata(a)
    mask = np.ma.getmask(a)
    if mask is not np.ma.nomask:
        mask_row[:] = mask
    if values.dtype.kind == "f":
        return pd.arrays.FloatingArray(values, mask_row, copy=False)
    return pd.arrays.IntegerArray(values, mask_row, copy=False)


class Rows:
    """The rows of one capture, as ``hwpc decode`` writes them.

    ``len(rows)`` is the number of rows; ``rows.columns`` a dict of NumPy
    arrays with the columns of the tool's CSV, in its order: ``report`` and
    ``offset`` (int64), ``timestamp`` (uint64 on the schema's clock), one
    uint64 per counter, ``reason`` (str), ``ctx_id`` (uint32), one float64
    per metric, and ``lost`` (bool) when the source can lose reports. A cell
    the CSV leaves empty is missing, never a number: ``timestamp``, the
    counters, ``ctx_id`` and the metrics are ``numpy.ma.MaskedArray``s whose
    mask marks those cells (a loss row's timestamp and counters, an unknown
    context, a metric the formula could not give), and ``to_pandas()`` makes
    them pandas' nullable columns (``pd.NA``), so statistics skip them.
    ``rows.schema``: per column kind, units and description, and the clock;
    ``rows.accounting``: where every record went (the JSON trailer's
    buckets); ``rows.dropped``: the metrics dropped and why. With
    ``summary=True`` the one row holds the totals of ``hwpc decode
    --summary`` instead.
    """

    def __init__(self, raw, summary=False):
        s = raw["schema"]
        self.summary = summary
        self.accounting = dict(raw["accounting"])
        self.dropped = list(raw.get("dropped", []))
        self.issues = list(raw.get("issues", []))
        # Plausibility findings (Mali): the tool's stderr warnings, the first
        # ones kept; warnings_total counts them all.
        self.warnings = list(raw.get("warnings", []))
        self.warnings_total = int(raw.get("warnings_total", len(self.warnings)))
        self._reason_codes = None
        self._reasons = None
        # Each row's interval in the schema's clock, not a column (the CSV has
        # none): the Perfetto fleet writer places values over it.
        self._interval = (raw.get("begin"), raw.get("end"))
        clock = _clock_units(s)
        cols = {}
        desc = {}

        def put(name, array, kind, units, text):
            if name in cols:  # a metric named like a column before it: keep the first
                return
            cols[name] = array
            desc[name] = {"kind": kind, "units": units, "description": text}

        fixed = lambda u: clock if u == "ticks" else u  # noqa: E731
        metric_masks = raw.get("metric_masks") or [None] * len(raw["metrics"])
        if summary:
            for name, units, text in _TOTALS_BEFORE:
                put(name, raw[name], "total", fixed(units), text)
            for (name, units), a in zip(s["counters"], raw["counters"]):
                put(name, a, "counter", units, "total over the capture")
            for name, units, text in _TOTALS_AFTER:
                if name in raw:
                    put(name, raw[name], "total", units, text)
            for (name, units), a, m in zip(s["metrics"], raw["metrics"], metric_masks):
                put(name, _masked(a, m), "metric", units, "metric of the totals")
        else:
            lost = raw["lost"]
            # Only a loss row leaves its timestamp and counters empty.
            lost_mask = lost if lost.any() else None
            put("report", raw["report"], "row", "", _FIXED_BEFORE[0][2])
            put("offset", raw["offset"], "row", "bytes", _FIXED_BEFORE[1][2])
            put("timestamp", _masked(raw["end"], lost_mask), "row", clock, _FIXED_BEFORE[2][2])
            for (name, units), a in zip(s["counters"], raw["counters"]):
                put(name, _masked(a, lost_mask), "counter", units, "increment over the interval")
            self._reason_codes = raw["reason_codes"]
            self._reasons = list(raw["reasons"])
            names = np.array(self._reasons if self._reasons else [""], dtype=str)
            put("reason", names[self._reason_codes], "row", "", _FIXED_AFTER[0][2])
            unknown = raw["ctx_unknown"]
            put("ctx_id", _masked(raw["ctx_id"], unknown if unknown.any() else None), "row", "",
                _FIXED_AFTER[1][2])
            for (name, units), a, m in zip(s["metrics"], raw["metrics"], metric_masks):
                put(name, _masked(a, m), "metric", units, "derived from the row's counters")
            if s["has_losses"]:
                put(_LOST[0], lost, "row", "", _LOST[2])
        self.columns = cols
        self.schema = {
            "source": s["source"],
            "clock": s["clock"],
            "ticks_per_second": s["ticks_per_second"],
            "has_context": s["has_context"],
            "has_losses": s["has_losses"],
            "columns": desc,
        }
        for key in ("platform", "format", "metric_set", "gpu_id"):
            if key in raw:
                self.schema[key] = raw[key]

    def __len__(self):
        first = next(iter(self.columns.values()), None)
        return 0 if first is None else len(first)

    def __repr__(self):
        return "<hwpc.Rows %s: %d rows, %d columns>" % (
            self.schema["source"], len(self), len(self.columns))

    def to_pandas(self):
        """A DataFrame with the columns in order; units in ``df.attrs["units"]``.

        ``reason`` is categorical; ``timestamp``, the counters, ``ctx_id``
        and the metrics are nullable (``UInt64``, ``UInt32``, ``Float64``)
        with ``pd.NA`` where the CSV leaves the cell empty, so ``describe()``,
        ``mean()`` and the other statistics skip missing data instead of
        counting it as 0. The values are the NumPy arrays, not copies.
        """
        import pandas as pd

        data = {}
        masked = [name for name, a in self.columns.items() if isinstance(a, np.ma.MaskedArray)]
        # One zeroed block for every column's mask: the pages of a column with
        # no missing cell are never touched, so its mask costs nothing.
        masks = np.zeros((len(masked), len(self)), dtype=bool)
        rows_of = {name: i for i, name in enumerate(masked)}
        for name, a in self.columns.items():
            if name == "reason" and self._reason_codes is not None:
                data[name] = pd.Categorical.from_codes(self._reason_codes,
                                                       categories=_unique(self._reasons))
            elif name in rows_of:
                data[name] = _pandas_array(a, masks[rows_of[name]])
            else:
                data[name] = a
        df = pd.DataFrame(data, copy=False)
        df.attrs["units"] = {k: v["units"] for k, v in self.schema["columns"].items()}
        df.attrs["source"] = self.schema["source"]
        return df

    def first(self, name):
        """The value of column ``name`` in the first row: None where it is missing."""
        v = self.columns[name][0]
        return None if v is np.ma.masked else v.item() if hasattr(v, "item") else v


def _unique(texts):
    # Categories must be unique; the reader gives each text one code already.
    return texts if texts else []
