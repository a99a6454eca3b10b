"""``agrag-lab eval``: recipes and baselines on a benchmark, a table and a report.

Examples
--------
::

    agrag-lab eval --benchmark musique --index .agrag/musique
    agrag-lab eval --benchmark workshop --index .agrag/workshop --recipes CHUNK,HYBRID
    agrag-lab eval --benchmark scifact:../shared/datasets/scifact --index .agrag/scifact
    agrag-lab eval --benchmark scifact --corpus 1000 --index .agrag/scifact-1000
    agrag-lab eval --benchmark medical --index .agrag/medical     # evidence coverage by question type
    agrag-lab eval --benchmark path/to/beir-folder --index .agrag/mine --out reports/mine
    agrag-lab eval --benchmark musique --index rules=.agrag/musique --index llm=.agrag/musique-graphrag
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from agrag_lab import recipes as recipe_lib
from agrag_lab.limits import MAX_EVAL_ITEMS, MAX_RESULTS, int_in

if TYPE_CHECKING:
    from agrag_lab.cli_options import Subcommands
    from agrag_lab.eval.benchmark import Benchmark


def expand_recipe_names(text: str) -> list[str] | None:
    """Recipe names from ``--recipes`` (None: the default set); ``PEERS`` stands for every peer recipe.

    Examples
    --------
    >>> expand_recipe_names("CHUNK, PEERS")[:3]
    ['CHUNK', 'GRAPHRAG_BASIC', 'GRAPHRAG_GLOBAL']
    >>> expand_recipe_names("") is None
    True
    """
    names = [r.strip() for r in text.split(",") if r.strip()]
    if not names:
        return None
    out: list[str] = []
    for name in names:
        out.extend(sorted(recipe_lib.peers()) if name.upper() == "PEERS" else [name])
    return out

def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cmd_eval(args: argparse.Namespace) -> int:
    """Run the evaluation the arguments describe; results to stdout, progress to stderr."""
    from agrag_lab.eval.graphrag_bench import coverage_result, is_coverage_benchmark
    from agrag_lab.eval.harness import evaluate
    from agrag_lab.eval.indexing import check_judged, ensure_index
    from agrag_lab.eval.loaders import load
    from agrag_lab.eval.report import report_folder, write_report
    from agrag_lab.graph import Graph
    from agrag_lab.progress import tqdm_progress

    report_folder(args.out)  # an unwritable --out is refused before the evaluation runs, not after
    benchmark = load(args.benchmark)
    if args.queries:
        benchmark = benchmark.subset(benchmark.judged_queries[: args.queries])
    if args.corpus:
        benchmark = benchmark.with_corpus(args.corpus)
    _log(f"benchmark: {benchmark!r}")
    indexes = index_labels(args.index)
    for folder in indexes.values():
        ensure_index(folder, benchmark, always=args.ingest, progress=tqdm_progress, log=_log)
    recipes = expand_recipe_names(args.recipes)
    from agrag_lab.cli_options import graph_store_of

    if len(indexes) > 1:
        return _eval_across(indexes, benchmark, recipes, args)
    with Graph.open(args.index[0], read_only=True, graph_store=graph_store_of(args)) as graph:
        check_judged(next(iter(indexes)), graph, benchmark, allow=args.allow_missing_judged, log=_log)
        result = evaluate(
            graph,
            benchmark,
            recipes,
            baselines=not args.no_baselines,
            per_hit=args.per_hit,
            stat_test=args.stat_test,
            progress=_log,
        )
    if is_coverage_benchmark(benchmark):
        result = coverage_result(result, benchmark)
    print(result.table())
    groups = result.group_table(result.metrics[1] if is_coverage_benchmark(benchmark) else "recall@5")
    if groups:
        print()
        print(groups)
    paths = write_report(result, args.out)
    print()
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0


def index_labels(values: list[str]) -> dict[str, str]:
    """``--index`` values as label -> folder: ``LABEL=PATH``, or the folder's name as its label.

    Examples
    --------
    >>> index_labels(["rules=.agrag/carol", ".agrag/carol-graphrag"])
    {'rules': '.agrag/carol', 'carol-graphrag': '.agrag/carol-graphrag'}
    """
    from agrag_lab.errors import EvaluationError

    out: dict[str, str] = {}
    for value in values:
        label, sep, path = value.partition("=")
        if not sep:
            label, path = value.rstrip("/").rsplit("/", 1)[-1] or value, value
        if label in out:
            raise EvaluationError(
                f"two --index values are labelled {label!r}; name them apart as LABEL=PATH (e.g. rules={path})")
        out[label] = path
    return out


def _eval_across(indexes: dict[str, str], benchmark: Benchmark, recipes: list[str] | None, args: argparse.Namespace) -> int:
    """``eval`` over several indexes of one corpus: every system, then each recipe across the indexes."""
    from contextlib import ExitStack

    from agrag_lab.cli_options import graph_store_of
    from agrag_lab.eval.across import across_table, evaluate_indexes
    from agrag_lab.eval.indexing import check_judged
    from agrag_lab.eval.report import write_report
    from agrag_lab.graph import Graph

    with ExitStack() as stack:
        graphs = {label: stack.enter_context(Graph.open(path, read_only=True, graph_store=graph_store_of(args)))
                  for label, path in indexes.items()}
        for label, graph in graphs.items():  # every index, before any is evaluated
            check_judged(label, graph, benchmark, allow=args.allow_missing_judged, log=_log)
        result = evaluate_indexes(graphs, benchmark, recipes, baselines=not args.no_baselines, per_hit=args.per_hit,
                                  stat_test=args.stat_test, progress=_log)
    print(result.table())
    print()
    print(f"Each recipe across the indexes ({result.primary}; paired {args.stat_test} test against "
          f"{next(iter(indexes))}):")
    print(across_table(result, result.primary))
    paths = write_report(result, args.out)
    print()
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0


def register(subparsers: Subcommands) -> None:
    """Add the ``eval`` sub-command to the ``agrag-lab`` parser."""
    p = subparsers.add_parser(
        "eval",
        help="evaluate recipes and baselines on a benchmark (table, CSV, JSON, HTML report)",
        description="Run recipes and the bm25 / dense / bm25+dense baselines on one index, score them on "
        "documents with ranx (Recall@2/5/10, nDCG@10, MRR) with confidence intervals and paired "
        "significance tests against the best baseline, and write a report.",
    )
    p.add_argument(
        "--benchmark",
        required=True,
        help="musique, workshop, scifact[:PATH], medical[:PATH] (GraphRAG-Bench Medical, scored by evidence "
        "coverage), or a BEIR-style folder (corpus.jsonl, queries.jsonl, qrels.tsv)",
    )
    p.add_argument(
        "--index", required=True, action="append",
        help="index folder; the benchmark is ingested when it is empty. Give it twice or more (LABEL=PATH or "
        "PATH) for indexes of one corpus (e.g. our rule graph and an imported GraphRAG graph): every recipe runs "
        "on each, side by side, with a paired test of each index against the first",
    )
    from agrag_lab.cli_options import add_falkordb_option

    add_falkordb_option(p)
    p.add_argument(
        "--recipes", default="",
        help="comma-separated built-in or peer recipe names (GRAPHRAG_LOCAL, ...; PEERS = every peer recipe) or "
        ".toml paths (default: all built-ins)",
    )
    p.add_argument("--out", default="reports/eval", help="folder for the CSV, JSON and HTML files")
    p.add_argument(
        "--stat-test",
        choices=("student", "fisher"),
        default="student",
        help="paired test: two-sided t-test or Fisher's randomization test",
    )
    p.add_argument(
        "--per-hit",
        type=int_in(1, MAX_RESULTS, "how many supporting passages of a hit count"),
        default=None,
        help="count at most N supporting passages per entity or report hit (default: all)",
    )
    p.add_argument("--queries", type=int_in(1, MAX_EVAL_ITEMS, "how many judged queries are evaluated"),
                   default=None, help="evaluate only the first N judged queries")
    p.add_argument(
        "--corpus", type=int_in(1, MAX_EVAL_ITEMS, "how many documents the corpus keeps"), default=None,
        help="keep only N documents: every judged one plus distractors drawn by SHA-1 of the id (e.g. SciFact 1000)",
    )
    p.add_argument("--ingest", action="store_true", help="ingest the benchmark even if the index is not empty")
    p.add_argument("--allow-missing-judged", action="store_true",
                   help="score an index that lacks documents the benchmark judges (each counts as a miss; an index "
                   "whose document ids differ from the benchmark's scores 0); refused by default")
    p.add_argument("--no-baselines", action="store_true", help="skip the bm25 / dense / bm25+dense baselines")
    p.set_defaults(func=cmd_eval)
