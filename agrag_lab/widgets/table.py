"""``TableView``: a table widget whose whole state is synced traits (anywidget).

Python sets ``columns`` and ``rows``; the browser draws them (``table.js``)
and writes the clicked row's key back into ``selected``. Every widget of
:mod:`agrag_lab.widgets` shows its tables with it, so a table can be read,
set and tested from Python alone.

Examples
--------
>>> t = TableView(columns=[column("key", "Key"), column("score", "Score", "float", digits=3)],
...               rows=[{"_key": "a", "key": "a", "score": 0.5}])
>>> t.row_keys
('a',)
>>> t.selected = "a"
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import anywidget
import polars as pl
import traitlets

_HERE = Path(__file__).resolve().parent

Format = Literal["text", "int", "float", "signed"]


def column(
    key: str,
    label: str,
    fmt: Format = "text",
    *,
    digits: int = 4,
    align: Literal["left", "right"] | None = None,
    title: str = "",
    wrap: bool = False,
    max_width: str = "",
) -> dict[str, Any]:
    """Describe one column of a :class:`TableView`.

    Parameters
    ----------
    key : str
        The row field shown in the column.
    label : str
        The header.
    fmt : {"text", "int", "float", "signed"}
        How numbers are written (``signed`` adds a ``+``).
    digits : int
        Decimals of ``float`` and ``signed`` columns.
    align : {"left", "right"}, optional
        Default: right for numbers, left for text.
    title : str
        Tooltip of the header.
    wrap : bool
        Wrap long text over several lines instead of cutting it short.
    max_width : str
        The widest a cell of the column grows (a CSS length, e.g. ``"16em"``; default 24em), its text cut with an
        ellipsis and whole in its hover: a narrower item column leaves room for every number of a wide table.

    Examples
    --------
    >>> column("rank", "#", "int")["align"]
    'right'
    """
    return {
        "key": key,
        "label": label,
        "format": fmt,
        "digits": digits,
        "align": align or ("left" if fmt == "text" else "right"),
        "title": title,
        "wrap": wrap,
        "max_width": max_width,
    }


def table_frame(rows: Sequence[dict[str, Any]]) -> pl.DataFrame:
    """The rows of a :class:`TableView` as a polars table a person reads: the internal fields (``_key``,
    ``_tone``, ``_hover``, ``_marks``: keys that start with ``_``) left out, columns in first-seen order.

    Examples
    --------
    >>> table_frame([{"_key": "a", "_marks": {"x": {"best": True}}, "recipe": "a", "x": 0.5}]).columns
    ['recipe', 'x']
    """
    names = list(dict.fromkeys(k for row in rows for k in row if not k.startswith("_")))
    return pl.DataFrame([{k: row.get(k) for k in names} for row in rows], schema=names if not rows else None,
                        infer_schema_length=None)


class TableView(anywidget.AnyWidget):
    """A selectable table: ``rows`` are dicts with a unique ``_key``.

    Traits (all synced)
    -------------------
    name : str
        A name for the DOM (``data-name``), e.g. ``"ledger"``.
    columns : list of dict
        From :func:`column`.
    rows : list of dict
        One dict per row; ``_key`` identifies it, ``_tone`` (optional) colours
        its left edge (``valid``, ``invalid``, ``up``, ``down``, ``only``, ``win``, ``loss``),
        ``_hover`` (optional) is the row's tooltip (e.g. the item's id), and
        ``_marks`` (optional) maps a column to ``{"best": bool, "sup": str, "title": str}``:
        bold for the best value, a superscript (significance, as ranx's reports mark it), a tooltip.
    selected : str
        The key of the selected row, ``""`` for none (set by a click, or from Python).
    cut_after : int
        Draw the cut line under this many rows (``-1``: no line); rows below it are greyed.
    """

    _esm = _HERE / "table.js"
    _css = _HERE / "table.css"

    name = traitlets.Unicode("").tag(sync=True)
    caption = traitlets.Unicode("").tag(sync=True)
    columns = traitlets.List(traitlets.Dict()).tag(sync=True)
    rows = traitlets.List(traitlets.Dict()).tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    cut_after = traitlets.Int(-1).tag(sync=True)
    cut_label = traitlets.Unicode("").tag(sync=True)
    empty_text = traitlets.Unicode("(nothing to show)").tag(sync=True)
    max_height = traitlets.Unicode("22em").tag(sync=True)

    @property
    def row_keys(self) -> tuple[str, ...]:
        """The row keys, top first."""
        return tuple(str(r.get("_key", "")) for r in self.rows)

    def set_rows(self, rows: Sequence[dict[str, Any]], *, cut_after: int = -1, cut_label: str = "") -> None:
        """Replace the rows (and the cut line) in one step; a vanished selection is cleared."""
        with self.hold_sync():
            self.rows = list(rows)
            self.cut_after = cut_after
            self.cut_label = cut_label
            if self.selected and self.selected not in self.row_keys:
                self.selected = ""
