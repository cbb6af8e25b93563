"""hwpc.Rows: one capture's rows as NumPy columns (the row contract)."""

import numpy as np

# Columns every row has, whatever the vendor: (name, units, description).
_FIXED_BEFORE = (
    ("report", "", "0-based index of the report (sample, result) that ends the row"),
    ("offset", "bytes", "byte offset of that report's record in the input"),
    ("begin", "ticks", "start of the interval on the schema's clock"),
    ("end", "ticks", "end of the interval on the schema's clock"),
    ("timestamp", "ticks", "the end again: the name the CSV gives it"),
)
_FIXED_AFTER = (
    ("reason", "", "why the report was written; the loss kind on a loss row"),
    ("ctx_id", "", "the context the interval ran in; -1 (pandas: <NA>) when unknown"),
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


class Rows:
    """The rows of one capture, as ``hwpc decode`` writes them.

    ``len(rows)`` is the number of rows; ``rows.columns`` a dict of NumPy
    arrays in the CSV's order (``report``/``offset`` int64, ``begin``/``end``/
    ``timestamp`` uint64 on the schema's clock, counters uint64 (0 on a loss
    row), ``reason`` str, ``ctx_id`` int64 (-1: unknown), metrics float64 (NaN
    where a cell is empty), ``lost`` bool); ``rows.schema`` per column kind,
    units and description, and the clock; ``rows.accounting`` where every
    record went (the JSON trailer's buckets); ``rows.dropped`` the metrics
    dropped and why. With ``summary=True`` the one row holds the totals of
    ``hwpc decode --summary`` instead.
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
        clock = _clock_units(s)
        cols = {}
        desc = {}

        def put(name, array, kind, units, text):
            if name in cols:  # a metric named like a column before it: keep the first
                return
            cols[name] = array
            desc[name] = {"kind": kind, "units": units, "description": text}

        fixed = lambda u: clock if u == "ticks" else u  # noqa: E731
        if summary:
            for name, units, text in _TOTALS_BEFORE:
                put(name, raw[name], "total", fixed(units), text)
            for (name, units), a in zip(s["counters"], raw["counters"]):
                put(name, a, "counter", units, "total over the capture")
            for name, units, text in _TOTALS_AFTER:
                if name in raw:
                    put(name, raw[name], "total", units, text)
            for (name, units), a in zip(s["metrics"], raw["metrics"]):
                put(name, a, "metric", units, "metric of the totals")
        else:
            end = raw["end"]
            fixed_arrays = {"report": raw["report"], "offset": raw["offset"],
                            "begin": raw["begin"], "end": end, "timestamp": end}
            for name, units, text in _FIXED_BEFORE:
                put(name, fixed_arrays[name], "row", fixed(units), text)
            for (name, units), a in zip(s["counters"], raw["counters"]):
                put(name, a, "counter", units, "increment over the interval")
            self._reason_codes = raw["reason_codes"]
            self._reasons = list(raw["reasons"])
            names = np.array(self._reasons if self._reasons else [""], dtype=str)
            put("reason", names[self._reason_codes], "row", "", _FIXED_AFTER[0][2])
            put("ctx_id", raw["ctx_id"], "row", "", _FIXED_AFTER[1][2])
            for (name, units), a in zip(s["metrics"], raw["metrics"]):
                put(name, a, "metric", units, "derived from the row's counters")
            put(_LOST[0], raw["lost"], "row", "", _LOST[2])
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

        ``reason`` is categorical and ``ctx_id`` a nullable UInt32 (``<NA>``
        where the context is unknown); the numbers are the NumPy arrays.
        """
        import pandas as pd

        data = {}
        for name, a in self.columns.items():
            if name == "reason" and self._reason_codes is not None:
                data[name] = pd.Categorical.from_codes(self._reason_codes,
                                                       categories=_unique(self._reasons))
            elif name == "ctx_id" and not self.summary:
                data[name] = pd.arrays.IntegerArray(a.astype(np.uint32), a < 0)
            else:
                data[name] = a
        df = pd.DataFrame(data, copy=False)
        df.attrs["units"] = {k: v["units"] for k, v in self.schema["columns"].items()}
        df.attrs["source"] = self.schema["source"]
        return df


def _unique(texts):
    # Categories must be unique; the reader gives each text one code already.
    return texts if texts else []
