"""CSV text as a table: a pandas DataFrame when pandas is importable, else a dict of NumPy
arrays (numeric columns as numbers, empty cells as NaN; other columns as strings)."""

from __future__ import annotations

import csv
import io

try:
    import pandas
except ImportError:  # pandas is optional
    pandas = None


def _column(values: list):
    """One column as a NumPy array: integers, floats (empty cells NaN) or strings."""
    import numpy

    for kind in (int, float):
        try:
            if kind is int and any(v == "" for v in values):
                continue
            return numpy.array([kind(v) if v != "" else numpy.nan for v in values])
        except ValueError:
            pass
    return numpy.array(values, dtype=object)


def to_table(text: str):
    """The CSV ``text`` (a header line, then rows) as a DataFrame or a dict of arrays."""
    if pandas is not None:
        # Round-trip parsing: every number is the double its text denotes, as Python's float() reads it.
        return pandas.read_csv(io.StringIO(text), float_precision="round_trip")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    return {name: _column([row[i] for row in body]) for i, name in enumerate(header)}
