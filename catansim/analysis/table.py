"""Result tables that read well in a terminal: the numbers first.

An analysis table carries its words beside its numbers: a ``label`` per row, the
``method`` of its intervals and the ``correction`` of its p-values, the same on every
row. Printed as a plain DataFrame, those long columns take the width and pandas hides
the rates behind "...". ``ResultTable`` is a DataFrame whose text (``repr``, ``print``)
shows its columns from the left, numbers first (``DIGITS`` decimals), then the flags
(booleans) and the text columns that vary by row, as many as fit the terminal's width (pandas'
``display.width`` when there is none); it names the columns left out, and says each
text column that holds one value on every row once, below the table. Its data and
HTML (notebooks) are a DataFrame's; a frame computed from it (``head``, ``xs``, a
selection of columns) is a ``ResultTable`` too, a column a plain Series.
"""

from __future__ import annotations

import shutil
import textwrap

import pandas as pd

DIGITS = 4  # decimals a ResultTable shows (the data keep every digit)


class ResultTable(pd.DataFrame):
    """A DataFrame whose text shows its numbers first and its constant words once."""

    @property
    def _constructor(self):  # pandas' way for a subclass: frames computed from it keep it
        return ResultTable

    def __repr__(self) -> str:
        frame = pd.DataFrame(self)
        if frame.empty or frame.columns.nlevels > 1:
            return repr(frame)
        words = [c for c in frame.columns if _is_text(frame[c])]
        constant = [c for c in words if frame[c].nunique(dropna=False) == 1]
        flags = [c for c in frame.columns if pd.api.types.is_bool_dtype(frame[c].dtype)]
        columns = ([c for c in frame.columns if c not in words and c not in flags] + flags
                   + [c for c in words if c not in constant])
        width = shutil.get_terminal_size((pd.get_option("display.width"), 24)).columns
        shown, body = columns, ""
        while True:
            body = _text(frame[shown])
            if len(shown) <= 1 or max(map(len, body.splitlines())) <= width:
                break
            shown = shown[:-1]
        notes = []
        if len(shown) < len(columns):
            left = [str(c) for c in columns[len(shown):]]
            notes.append(textwrap.fill(f"... {len(left)} more columns: {', '.join(left)}",
                                       width, subsequent_indent="    "))
        notes += [textwrap.fill(f"{c}: {frame[c].iloc[0]}", width, subsequent_indent="    ")
                  for c in constant]
        return "\n".join([body, *notes])


def _text(frame: pd.DataFrame) -> str:
    """``frame`` as pandas prints it, rows cut as pandas cuts them, every column."""
    with pd.option_context("display.precision", DIGITS):
        return frame.to_string(max_rows=pd.get_option("display.max_rows"),
                               min_rows=pd.get_option("display.min_rows"),
                               show_dimensions=len(frame) > pd.get_option("display.max_rows"))


def _is_text(column: pd.Series) -> bool:
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    return pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)


def result_table(frame: pd.DataFrame) -> ResultTable:
    """``frame`` as a ``ResultTable`` (the same data, index and columns)."""
    return ResultTable(frame)
