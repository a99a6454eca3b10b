"""Evaluate recipes against baselines on benchmarks, with significance tests.

A :class:`Benchmark` is documents, queries and graded qrels (keyed by
document id). :func:`evaluate` runs recipes and three baselines (``bm25``,
``dense``, ``bm25+dense``) on one index, projects every run onto documents
(:mod:`agrag_lab.eval.projection`), scores it with ranx (Recall@2/5/10,
nDCG@10, MRR), adds bootstrap confidence intervals and paired significance
tests against the best baseline, and returns an :class:`EvalResult`.
:func:`write_report` writes CSV, JSON and an HTML report with charts.

Loaders: :func:`musique` and :func:`workshop` (bundled), :func:`scifact`
(read from a path you give; CC BY-NC, not bundled), :func:`folder` (BEIR-style
``corpus.jsonl`` / ``queries.jsonl`` / ``qrels.tsv``), :func:`load` (by name).

Examples
--------
>>> from agrag_lab.eval import musique
>>> bench = musique()
>>> dict(bench.qrels["2hop__150763_14904"])
{'musique-0006': 1, 'musique-0010': 1}

Evaluating needs an index that holds the benchmark's documents::

    from agrag_lab import Graph
    from agrag_lab.eval import evaluate, write_report
    with Graph.open(".agrag/musique", read_only=True) as graph:
        result = evaluate(graph, bench)
    print(result.table())
    write_report(result, "reports/eval")
"""

import warnings

from agrag_lab.extras import require

require("eval", "ranx", feature="the evaluation harness")
# ranx's numba-typed dicts warn "unsafe cast from int64 to undefined" on every first call (numba's
# NumbaTypeSafetyWarning): a red box above a fresh kernel's first table, about nothing a user did. Quieted by
# its message, so numba is not imported here (its import is a second on a busy machine).
warnings.filterwarnings("ignore", message=r"unsafe cast from .* Precision may be lost")

from agrag_lab.eval.benchmark import Benchmark
from agrag_lab.eval.bundled import musique, workshop
from agrag_lab.eval.folder import folder
from agrag_lab.eval.harness import evaluate, resolve_recipes
from agrag_lab.eval.loaders import load
from agrag_lab.eval.metrics import METRICS, bootstrap_ci, compare, per_query_scores
from agrag_lab.eval.projection import project, project_run
from agrag_lab.eval.report import write_report
from agrag_lab.eval.result import EvalResult, SystemScores
from agrag_lab.eval.scifact import scifact

__all__ = [
    "METRICS",
    "Benchmark",
    "EvalResult",
    "SystemScores",
    "bootstrap_ci",
    "compare",
    "evaluate",
    "folder",
    "load",
    "musique",
    "per_query_scores",
    "project",
    "project_run",
    "resolve_recipes",
    "scifact",
    "workshop",
    "write_report",
]
