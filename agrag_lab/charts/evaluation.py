"""Charts of an evaluation: metrics with confidence intervals, wins and losses, groups.

Each takes an :class:`~agrag_lab.eval.result.EvalResult` (typed here as the
narrow :class:`Evaluation` protocol, so charts never import ``eval``, which
draws its reports with them) and reads its stored scores; nothing is
re-evaluated.

Examples
--------
>>> from agrag_lab.eval.result import EXAMPLE, EvalResult
>>> fig = metric_comparison(EvalResult.from_dict(EXAMPLE), "recall@2")
>>> [t.name for t in fig.data]
['recipe', 'baseline', 'reference: bm25']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import plotly.graph_objects as go

from agrag_lab.charts.palette import OKABE_ITO, ROLES, style
from agrag_lab.errors import NotFoundError


class SignificanceMark(Protocol):
    """How one mean is marked (:class:`agrag_lab.eval.marks.Mark`)."""

    @property
    def sup(self) -> str: ...

    @property
    def title(self) -> str: ...


class SystemResult(Protocol):
    """One system's scores (:class:`agrag_lab.eval.result.SystemScores`)."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def mean(self) -> Mapping[str, float]: ...

    @property
    def ci(self) -> Mapping[str, tuple[float, float]]: ...

    @property
    def per_query(self) -> Mapping[str, Mapping[str, float]]: ...


class Evaluation(Protocol):
    """What the charts read of an evaluation (:class:`agrag_lab.eval.result.EvalResult` has it)."""

    @property
    def benchmark(self) -> str: ...

    @property
    def metrics(self) -> tuple[str, ...]: ...

    @property
    def systems(self) -> Sequence[SystemResult]: ...

    @property
    def reference(self) -> str: ...

    @property
    def p_values(self) -> Mapping[str, Mapping[str, float]]: ...

    @property
    def groups(self) -> Mapping[str, str]: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def queries(self) -> tuple[str, ...]: ...

    def letters(self) -> dict[str, str]: ...

    def marks(self) -> Mapping[str, Mapping[str, SignificanceMark]]: ...

    def system(self, name: str) -> SystemResult: ...

    def wins_losses(self, name: str, metric: str, reference: str | None = None) -> tuple[int, int, int]: ...

#: How metric names are shown.
PRETTY = {
    "recall@2": "Recall@2",
    "recall@5": "Recall@5",
    "recall@10": "Recall@10",
    "ndcg@10": "nDCG@10",
    "mrr": "MRR",
    "map": "MAP",
}


def pretty(metric: str) -> str:
    """Display name of a ranx metric (``recall@5`` -> ``Recall@5``)."""
    return PRETTY.get(metric, metric)


def _p_text(result: Evaluation, name: str, metric: str) -> str:
    if name == result.reference:
        return "reference"
    p = result.p_values.get(name, {}).get(metric)
    return "n/a" if p is None else f"p = {p:.3g}"


#: Fewer judged queries than this: no confidence interval is drawn (nor claimed in the title).
MIN_QUERIES_FOR_INTERVAL = 10


def metric_comparison(
    result: Evaluation, metric: str = "recall@5", *, title: str | None = None, intervals: bool | None = None
) -> go.Figure:
    """One bar per system (recipes, then baselines) with its confidence interval.

    ``intervals`` (default: when there are at least :data:`MIN_QUERIES_FOR_INTERVAL`
    judged queries) draws the 95 % intervals as error bars; without them the
    title says so. A dashed line marks the reference baseline (named in the legend,
    so no label sits on a bar). As ranx's report tables
    (:mod:`agrag_lab.eval.marks`): each system is named with its letter, and the
    superscript letters after a name are the systems it is significantly above (p < 0.05).
    """
    if metric not in result.metrics:
        raise NotFoundError(f"metric {metric!r} was not evaluated; choose one of {list(result.metrics)}")
    if intervals is None:
        intervals = len(result.queries) >= MIN_QUERIES_FOR_INTERVAL
    fig = go.Figure()
    ref_mean = result.system(result.reference).mean[metric]
    marked = result.marks()
    # the letters a system is significantly above, as a superscript of its name (above a bar they sat on the
    # error bar's cap)
    named = {name: f"{name} ({letter})" + (f"<sup>{marked[name][metric].sup}</sup>" if marked[name][metric].sup else "")
             for name, letter in result.letters().items()}
    for kind in ("recipe", "baseline"):
        systems = [s for s in result.systems if s.kind == kind]
        if not systems:
            continue
        means = [s.mean[metric] for s in systems]
        shown = [marked[s.name][metric] for s in systems]
        fig.add_trace(
            go.Bar(
                name=kind,
                x=[named[s.name] for s in systems],
                y=means,
                marker={"color": ROLES[kind]},
                error_y={
                    "visible": intervals,
                    "type": "data",
                    "symmetric": False,
                    "color": "#888888",  # reads on the light and the dark theme
                    "thickness": 1.5,
                    "array": [s.ci[metric][1] - s.mean[metric] for s in systems],
                    "arrayminus": [s.mean[metric] - s.ci[metric][0] for s in systems],
                },
                customdata=[[s.ci[metric][0], s.ci[metric][1], _p_text(result, s.name, metric),
                             mark.title or "significantly above none"] for s, mark in zip(systems, shown, strict=True)],
                hovertemplate=(
                    f"<b>%{{x}}</b><br>{pretty(metric)}: %{{y:.3f}}<br>95% CI: "
                    "%{customdata[0]:.3f} – %{customdata[1]:.3f}<br>%{customdata[2]} against the reference"
                    "<br>%{customdata[3]}<extra></extra>"
                ),
            )
        )
    fig.add_hline(y=ref_mean, line_dash="dash", line_color="#888888")
    # the reference line's name in the legend (a label at the line's end sat on a bar)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line={"dash": "dash", "color": "#888888"},
                             name=f"reference: {result.reference}", hoverinfo="skip"))
    shown_ci = "95% CI" if intervals else f"no interval: {len(result.queries)} queries are too few"
    style(
        fig,
        title or f"{pretty(metric)} on {result.benchmark} ({len(result.queries)} queries), {shown_ci}",
        legend_title_text="system",
        height=460,
        xaxis={"title": "system (superscript: the systems it is significantly above, p < 0.05)",
               "categoryorder": "array", "categoryarray": [named[n] for n in result.names]},
        yaxis={"title": pretty(metric), "rangemode": "tozero"},
    )
    return fig


def wins_losses(
    result: Evaluation, baseline: str | None = None, metric: str = "recall@5", *, title: str | None = None
) -> go.Figure:
    """Per-query wins (up, green) and losses (down, vermillion) of each system against ``baseline``.

    ``baseline`` defaults to the result's reference (the best baseline).
    Ties are counted in the hover text.
    """
    ref = baseline or result.reference
    result.system(ref)  # raises on an unknown name
    others = [s.name for s in result.systems if s.name != ref]
    counts = {n: result.wins_losses(n, metric, ref) for n in others}
    most = max([1, *(max(c[0], c[2]) for c in counts.values())])
    fig = go.Figure()
    for label, name, sign, index in (("win", "wins", 1, 0), ("loss", "losses", -1, 2)):
        fig.add_trace(
            go.Bar(
                name=name,
                x=others,
                y=[sign * counts[n][index] for n in others],
                marker={"color": ROLES[label]},
                customdata=[list(counts[n]) for n in others],
                hovertemplate=(
                    f"<b>%{{x}}</b> vs {ref} on {pretty(metric)}<br>wins: %{{customdata[0]}}"
                    "<br>ties: %{customdata[1]}<br>losses: %{customdata[2]}<extra></extra>"
                ),
            )
        )
    style(
        fig,
        title or f"Per-query wins and losses against {ref} ({pretty(metric)}, {result.benchmark})",
        barmode="relative",
        legend_title_text="",
        height=440,
        xaxis={"title": "system"},
        # whole queries: integer ticks, at least one query per tick
        yaxis={"title": "queries (wins up, losses down)", "zeroline": True, "tickformat": "d",
               "dtick": max(1, math.ceil(most / 6)), "range": [-most - 0.5, most + 0.5]},
    )
    return fig


def metric_by_group(result: Evaluation, metric: str = "recall@5", *, title: str | None = None) -> go.Figure:
    """Mean ``metric`` per system within each query group (e.g. 2-, 3-, 4-hop)."""
    groups = sorted(set(result.groups.values()))
    fig = go.Figure()
    counters = {"recipe": 0, "baseline": 0}
    for s in result.systems:
        shade = OKABE_ITO[1 + counters.setdefault(s.kind, 0) % (len(OKABE_ITO) - 1)]
        counters[s.kind] += 1
        means: list[Any] = []
        for g in groups:
            values = [v for q, v in s.per_query[metric].items() if result.groups.get(q) == g]
            means.append(sum(values) / len(values) if values else None)
        fig.add_trace(
            go.Bar(
                name=s.name,
                x=groups,
                y=means,
                marker={"color": shade},
                marker_pattern_shape="/" if s.kind == "baseline" else "",
                hovertemplate=f"<b>{s.name}</b> ({s.kind})<br>%{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    counts = {g: sum(1 for v in result.groups.values() if v == g) for g in groups}
    style(
        fig,
        title or f"{pretty(metric)} by query group on {result.benchmark} (hatched = baseline)",
        barmode="group",
        legend_title_text="system",
        height=480,
        margin={"t": 120},
        xaxis={"title": "group", "ticktext": [f"{g} ({counts[g]} queries)" for g in groups], "tickvals": groups},
        yaxis={"title": pretty(metric), "rangemode": "tozero"},
    )
    return fig
