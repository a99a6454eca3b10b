"""Charts of one search and of two searches: who contributed what, and what moved.

Both read only the run's ledger (its trace); nothing is recomputed.

Examples
--------
>>> from agrag_lab.charts.ranking import item_label
>>> item_label(1, "Ada Lovelace", "entity")
'#1 Ada Lovelace (entity)'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from agrag_lab.charts.palette import ROLES, color, style
from agrag_lab.names import clip_name, distinct_names
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.retrieval.trace import SearchTrace

#: Characters of a title shown on an axis (the whole name is in the hover): longer labels leave the bars
#: too little of a notebook cell's width.
LABEL_WIDTH = 32
#: Characters of a title beside a rank-shift point (the whole name is in the hover): the label must fit
#: between the rank axis and its point at a notebook cell's width.
SHIFT_LABEL_WIDTH = 26
#: The rank-shift chart's x range around its two columns (0 and 1): room for a label left of the left
#: column and right of the right one, clear of the rank numbers.
SHIFT_RANGE = (-1.5, 2.5)


#: The tallest chart, in pixels: with JupyterLab's bars around it, a chart up to this tall shows its legend and
#: both axes on a 1366x768 screen without scrolling.
MAX_HEIGHT = 560


def fit_height(rows: int, *, base: int, per_row: int, least: int) -> int:
    """A chart's height for ``rows`` rows: ``base + per_row * rows``, at least ``least``, at most :data:`MAX_HEIGHT`.

    Examples
    --------
    >>> fit_height(20, base=60, per_row=24, least=320), fit_height(40, base=60, per_row=24, least=320)
    (540, 560)
    """
    return min(MAX_HEIGHT, max(least, base + per_row * rows))


def _as_run(run_or_trace: SearchRun | SearchTrace) -> SearchRun:
    return run_or_trace if isinstance(run_or_trace, SearchRun) else SearchRun.from_trace(run_or_trace)


def _short(text: str, width: int = LABEL_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def item_label(rank: int, title: str, kind: str) -> str:
    """The axis label of a ranked item: ``#rank name (kind)`` (the name from :mod:`agrag_lab.names`)."""
    return f"#{rank} {clip_name(title, LABEL_WIDTH)} ({kind})"


def contribution_data(run: SearchRun, top: int | None = None) -> tuple[list[str], dict[str, dict[str, list[Any]]]]:
    """The data of :func:`rank_contributions`: bar order, and x/y/customdata per source (in source order).

    The FusionInspector updates its chart in place with this (a new figure per
    slider step would cost more than the re-fusion itself). ``customdata`` per
    bar: rank in the source, weight, fused score, id, whole name.
    """
    rows = [r for r in run.ledger_rows() if r["kept"]]
    rows.sort(key=lambda r: (r["final_rank"], r["source"]))
    if top is not None:
        rows = [r for r in rows if r["final_rank"] <= top]
    labels: dict[str, str] = {}
    for r in rows:
        labels.setdefault(r["key"], item_label(r["final_rank"], r["name"], r["kind"]))
    traces: dict[str, dict[str, list[Any]]] = {}
    for source in dict.fromkeys(r["source"] for r in rows):
        traces[source] = {"x": [], "y": [], "customdata": []}
    for r in rows:
        data = traces[r["source"]]
        data["x"].append(r["term"])
        data["y"].append(labels[r["key"]])
        data["customdata"].append([r["source_rank"], r["weight"], r["fused_score"], r["key"], r["name"]])
    return list(labels.values()), traces


def rank_contributions(
    run_or_trace: SearchRun | SearchTrace, *, top: int | None = None, title: str | None = None
) -> go.Figure:
    """Stacked RRF terms of each final result, one colour per source.

    Each bar is one result (best at the top); its segments are the terms
    ``w / (k + rank)`` each source (method, walk, communities) contributed,
    so the bar's length is the fused score. Hover shows the source's rank,
    weight and term.

    Parameters
    ----------
    run_or_trace : SearchRun or SearchTrace
        The search to show.
    top : int, optional
        Show only the first ``top`` results.
    title : str, optional
        Default: ``"<recipe>: why each result ranked where it did"``.
    """
    run = _as_run(run_or_trace)
    order, traces = contribution_data(run, top)
    fig = go.Figure()
    for source, data in traces.items():
        fig.add_trace(
            go.Bar(
                name=source,
                orientation="h",
                x=data["x"],
                y=data["y"],
                marker={"color": color(source)},
                customdata=data["customdata"],
                hovertemplate=(
                    f"<b>%{{customdata[4]}}</b><br>source: {source}<br>rank in source: %{{customdata[0]}}"
                    "<br>weight: %{customdata[1]}<br>term: %{x:.5f}<br>fused score: %{customdata[2]:.5f}"
                    "<br>%{customdata[3]}<extra></extra>"
                ),
            )
        )
    fusion = run.trace.outcome.fusion
    name = run.trace.recipe.get("name", "recipe")
    style(
        fig,
        title or f"{name}: why each result ranked where it did",
        barmode="stack",
        height=fit_height(len(order), base=60, per_row=24, least=320),
        legend_title_text="source",
        xaxis_title=f"RRF contribution ({fusion.convention}, k={fusion.k:g})",
        # a bar's length is the fused score: the axis starts at zero
        xaxis={"rangemode": "tozero", "autorange": True},
        yaxis={"title": "result", "categoryorder": "array", "categoryarray": order, "autorange": "reversed"},
    )
    return fig


def single_votes(run_or_trace: SearchRun | SearchTrace) -> dict[str, int]:
    """Results per source when every result has exactly one vote, else ``{}``.

    Then :func:`rank_contributions` would draw one bar per result whose
    length is only ``w / (k + rank)`` of its one source: the rank again, not
    an explanation. Views show these counts instead of that chart.
    """
    run = _as_run(run_or_trace)
    votes: dict[str, list[str]] = {}
    for r in run.ledger_rows():
        if r["kept"]:
            votes.setdefault(r["key"], []).append(r["source"])
    if not votes or any(len(v) != 1 for v in votes.values()):
        return {}
    counts: dict[str, int] = {}
    for sources in votes.values():
        counts[sources[0]] = counts.get(sources[0], 0) + 1
    return counts


def _ranks(run: SearchRun) -> dict[str, tuple[int, str, str]]:
    return {r.id: (r.rank, r.name, r.kind) for r in run.results}


def _shift_labels(ra: dict[str, tuple[int, str, str]], rb: dict[str, tuple[int, str, str]]) -> dict[str, str]:
    """Each item's label beside its rank-shift point: its name made distinct, then cut keeping a passage's ``#cN``."""
    names = distinct_names({key: (ra[key] if key in ra else rb[key])[1] for key in dict.fromkeys([*ra, *rb])})
    return {key: f"{clip_name(name, SHIFT_LABEL_WIDTH)} ({(ra[key] if key in ra else rb[key])[2]})"
            for key, name in names.items()}


def rank_shift(
    run_a: SearchRun | SearchTrace,
    run_b: SearchRun | SearchTrace,
    *,
    names: Sequence[str] | None = None,
    title: str | None = None,
) -> go.Figure:
    """A slopegraph of the same query under two recipes: where each item moved.

    A line joins an item's rank in ``run_a`` (left) to its rank in ``run_b``
    (right): green when it moved up, vermillion when it moved down, grey when
    it stayed. Items found by one recipe only are single sky-blue markers.
    """
    a, b = _as_run(run_a), _as_run(run_b)
    left, right = list(names) if names else [str(a.trace.recipe.get("name")), str(b.trace.recipe.get("name"))]
    if left == right:
        left, right = f"{left} (a)", f"{right} (b)"
    ra, rb = _ranks(a), _ranks(b)
    fig = go.Figure()
    shown: set[str] = set()

    def legend(category: str) -> dict[str, Any]:
        first = category not in shown
        shown.add(category)
        return {"legendgroup": category, "showlegend": first, "name": category}

    labels = {"up": "moved up", "down": "moved down", "same": "same rank", "only": "in one list only"}
    point_labels = _shift_labels(ra, rb)
    for key in list(dict.fromkeys([*ra, *rb])):
        rank_a = ra[key][0] if key in ra else None
        rank_b = rb[key][0] if key in rb else None
        text = point_labels[key]
        if rank_a is not None and rank_b is not None:
            category = "up" if rank_b < rank_a else "down" if rank_b > rank_a else "same"
            fig.add_trace(
                go.Scatter(
                    x=[left, right],
                    y=[rank_a, rank_b],
                    mode="lines+markers+text",
                    text=[text, ""],
                    textposition="middle left",
                    textfont={"size": 12},
                    line={"color": ROLES[category], "width": 2},
                    marker={"size": 9, "color": ROLES[category]},
                    hovertemplate=f"<b>{text}</b><br>{left}: #{rank_a}<br>{right}: #{rank_b}<br>{key}<extra></extra>",
                    **{**legend(category), "name": labels[category]},
                )
            )
        else:
            side, rank = (left, rank_a) if rank_a is not None else (right, rank_b)
            fig.add_trace(
                go.Scatter(
                    x=[side],
                    y=[rank],
                    mode="markers+text",
                    text=[text],
                    textposition="middle left" if side == left else "middle right",
                    textfont={"size": 12},
                    marker={"size": 10, "color": ROLES["only"], "symbol": "diamond"},
                    hovertemplate=f"<b>{text}</b><br>only in {side}: #{rank}<br>{key}<extra></extra>",
                    **{**legend("only"), "name": labels["only"]},
                )
            )
    depth = max([1, *(v[0] for v in ra.values()), *(v[0] for v in rb.values())])
    style(
        fig,
        title or f"Rank shift: {left} → {right} for {_short(a.trace.query, 70)!r}",
        height=fit_height(depth, base=80, per_row=24, least=360),
        legend_title_text="",
        # room beside both columns for the item labels; rank 1 at the top
        xaxis={
            "title": "recipe",
            "type": "category",
            "categoryorder": "array",
            "categoryarray": [left, right],
            "range": list(SHIFT_RANGE),
        },
        yaxis={"title": "rank", "range": [depth + 0.5, 0.5], "dtick": 1},
    )
    return fig
