"""Plotly charts of searches and evaluations, testable as data.

Every function returns a ``plotly.graph_objects.Figure`` built only from a
run's trace or an evaluation result, with a title, axis labels, a legend,
hover text and the colour-blind-safe Okabe-Ito palette
(:mod:`agrag_lab.charts.palette`).

=========================  ===================================================
``rank_contributions``     stacked RRF terms per result, by source
``rank_shift``             slopegraph of one query under two recipes
``metric_comparison``      a metric per system with confidence intervals
``wins_losses``            per-query wins and losses against a baseline
``metric_by_group``        a metric per system within query groups (hops)
=========================  ===================================================

Examples
--------
>>> from agrag_lab.charts import metric_comparison
>>> from agrag_lab.eval.result import EXAMPLE, EvalResult
>>> metric_comparison(EvalResult.from_dict(EXAMPLE), "recall@2").layout.yaxis.title.text
'Recall@2'
"""

from agrag_lab.extras import require

require("lab", "plotly", feature="the charts")

from agrag_lab.charts.evaluation import metric_by_group, metric_comparison, wins_losses
from agrag_lab.charts.palette import OKABE_ITO, color
from agrag_lab.charts.ranking import rank_contributions, rank_shift, single_votes

__all__ = [
    "OKABE_ITO",
    "color",
    "metric_by_group",
    "metric_comparison",
    "rank_contributions",
    "rank_shift",
    "single_votes",
    "wins_losses",
]
