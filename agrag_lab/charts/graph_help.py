"""Chart: when does the graph help? The graph recipe's gain over the best system without it, per group.

Examples
--------
>>> from agrag_lab.eval.graph_help import graph_help
>>> from agrag_lab.eval.result import EXAMPLE, EvalResult
>>> fig = graph_help_chart(graph_help([EvalResult.from_dict(EXAMPLE)], "HYBRID", metric="recall@2"))
>>> [(t.name, list(t.y)) for t in fig.data]
[('graph helps', []), ('graph hurts', []), ('no significant difference', ['example: all', 'example: 1-hop', 'example: 2-hop'])]
>>> fig.layout.xaxis.title.text
'graph recipe minus the best system without the graph'
>>> fig.layout.yaxis.autorange  # the first group on top, as in the verdict table
'reversed'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import plotly.graph_objects as go

from agrag_lab.charts.evaluation import pretty
from agrag_lab.charts.palette import OKABE_ITO, style


class GroupVerdict(Protocol):
    """One benchmark group's verdict (:class:`agrag_lab.eval.graph_help.GroupVerdict` has it)."""

    @property
    def benchmark(self) -> str: ...

    @property
    def group(self) -> str: ...

    @property
    def queries(self) -> int: ...

    @property
    def metric(self) -> str: ...

    @property
    def winner(self) -> str: ...

    @property
    def graph(self) -> str: ...

    @property
    def graph_score(self) -> float: ...

    @property
    def versus(self) -> str: ...

    @property
    def versus_score(self) -> float: ...

    @property
    def delta(self) -> float: ...

    @property
    def p(self) -> float: ...

    @property
    def verdict(self) -> str: ...

#: Bar colour per verdict (Okabe-Ito: bluish green, vermillion, sky blue).
VERDICT_COLORS = {"helps": OKABE_ITO[3], "hurts": OKABE_ITO[6], "no difference": OKABE_ITO[2]}


def graph_help_chart(rows: Sequence[GroupVerdict], *, title: str | None = None) -> go.Figure:
    """One bar per benchmark and question group: the graph recipe's mean minus the best no-graph system's.

    Bars are horizontal, one row per group in the order of ``rows``, so long
    group names ("medical: Contextual Summarize") read without rotation.

    Bars are coloured by verdict (significantly better, worse, or no
    difference at p < 0.05, paired t-test); the hover names the metric, both
    systems, the winner of the group and the p-value.
    """
    fig = go.Figure()
    for verdict, colour in VERDICT_COLORS.items():
        chosen = [r for r in rows if r.verdict == verdict]
        fig.add_trace(
            go.Bar(
                name=f"graph {verdict}" if verdict != "no difference" else "no significant difference",
                orientation="h",
                y=[_label(r) for r in chosen],
                x=[r.delta for r in chosen],
                marker={"color": colour},
                customdata=[
                    [pretty(r.metric), r.graph, r.graph_score, r.versus, r.versus_score, r.winner, r.p, r.queries]
                    for r in chosen
                ],
                hovertemplate=(
                    "<b>%{y}</b> (%{customdata[7]} questions)<br>%{customdata[0]}: %{customdata[1]} "
                    "%{customdata[2]:.3f} vs %{customdata[3]} %{customdata[4]:.3f}<br>difference %{x:+.3f}, "
                    "p = %{customdata[6]:.3g}<br>best in group: %{customdata[5]}<extra></extra>"
                ),
            )
        )
    order = [_label(r) for r in rows]
    graph = rows[0].graph if rows else "graph recipe"
    style(
        fig,
        title or f"When does the graph help? {graph} against the best system without the graph",
        barmode="overlay",
        legend_title_text="",
        height=160 + 26 * max(len(rows), 3),
        margin={"t": 80, "b": 110},
        yaxis={"title": "", "categoryorder": "array", "categoryarray": order, "autorange": "reversed",
               "automargin": True},
        xaxis={"title": "graph recipe minus the best system without the graph", "zeroline": True},
    )
    empty = empty_reason(rows)
    if empty:  # bars of length 0 draw nothing: one sentence says why instead of an empty chart
        fig.add_annotation(text=empty, xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False,
                           font={"size": 14})
    return fig


def empty_reason(rows: Sequence[GroupVerdict]) -> str:
    """Why :func:`graph_help_chart` draws no bar, or ``""`` when it draws one.

    Examples
    --------
    >>> empty_reason([])
    'no benchmark group to compare'
    """
    if not rows:
        return "no benchmark group to compare"
    if all(abs(r.delta) < 1e-12 for r in rows):
        return (f"no bar to draw: {rows[0].graph} scores exactly as the best system without the graph in every "
                "group (every difference is 0.000; see the table above)")
    return ""


def _label(row: GroupVerdict) -> str:
    """``benchmark: group``, without the metric a benchmark's name may carry ("medical (evidence coverage)")."""
    return f"{row.benchmark.split(' (')[0]}: {row.group}"
