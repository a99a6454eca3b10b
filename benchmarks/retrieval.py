"""Retrieval on four kinds of question (issue 16): the recommended recipe, every variant tried, and
"when does the graph help?".

Benchmarks (each also one command, ``agrag-lab eval --benchmark NAME``):

* ``musique``: MuSiQue-100, multi-hop (bundled);
* ``workshop``: the 20 workshop questions (bundled);
* ``scifact``: SciFact claims, single-hop (read from ``../shared/datasets/scifact`` or
  ``$AGRAG_SCIFACT``; CC BY-NC, not bundled): :data:`SCIFACT_QUERIES` test claims (SHA-1 sample)
  over a sub-corpus of :data:`SCIFACT_CORPUS` abstracts (every cited one plus distractors by SHA-1),
  so that it ingests on 2 cores;
* ``medical``: GraphRAG-Bench Medical (``../shared/datasets/graphrag_bench_medical`` or
  ``$AGRAG_GRAPHRAG_BENCH``), 75 questions of each type, scored by evidence coverage.

Indexes are built once under ``--index-root`` (``make bench``: ``.agrag/bench``) and reused.

Run alone: ``python -m benchmarks.retrieval --index-root .agrag/bench --out reports/retrieval.md``; redraw its
chart from the saved results: ``python -m benchmarks.retrieval chart``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agrag_lab.recipes import BUILTINS, GRAPH_EXPAND, GRAPH_HYBRID, RECOMMENDED, FusionSettings, GraphWalk, Recipe

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.eval.benchmark import Benchmark
    from agrag_lab.eval.result import EvalResult
    from agrag_lab.graph import Graph

TITLE = "Retrieval on four kinds of question (issue 16)"
#: SciFact test claims evaluated (a SHA-1 sample of the 300) and abstracts ingested (the ones
#: they cite, plus distractors by SHA-1): the full 5,183 abstracts take hours to ingest on 2 shared cores.
SCIFACT_QUERIES = 100
SCIFACT_CORPUS = 400
#: The metric each benchmark is judged on first, and the extra ones the rule reads.
PRIMARY = {"musique": "recall@5", "workshop": "recall@5", "scifact": "recall@5", "medical": "coverage@5"}
EXTRA = {"scifact": ("ndcg@10", "recall@10")}
#: Where the scores of the last run are kept (per-query scores, no rankings), for notebook 07.
SAVED = Path(__file__).with_name("results") / "retrieval.json"


def _walk(**changes: Any) -> GraphWalk:
    settings: dict[str, Any] = {
        "enabled": True, "depth": 2, "limit": 10, "strategy": "ppr", "restart": 0.3, "prior_weight": 0.3,
    }
    settings.update(changes)
    return GraphWalk(**settings)


def _fused(
    name: str, methods: tuple[str, ...], description: str, walk_weight: float = 1.0, *,
    k: float | None = None, keyword: float | None = None, limit: int = 10, **walk: Any,
) -> Recipe:
    weights = {"walk": walk_weight, **({"entity": 0.0} if "entity" in methods else {})}
    if keyword is not None:
        weights["keyword"] = keyword
    return Recipe(
        name, methods, limit=limit, candidates=50, walk=_walk(**walk), fusion=FusionSettings(k=k, weights=weights),
        description=description,
    )


#: Every variant measured (besides the built-ins), in the order they were tried. Three more were
#: measured and dropped from the table (it names at most 26 systems): BENCHMARKS.md, "Retrieval on four kinds of
#: question", what did not work.
VARIANTS: tuple[Recipe, ...] = (
    GRAPH_EXPAND.replace(
        name="GE+hybrid_prior", description="GRAPH_EXPAND with the walk's prior from dense + keyword chunk hits",
        **{"walk.prior": "hybrid"},
    ),
    _fused("passage+walk", ("passage", "entity"),
           "HippoRAG-2 style: the dense passage ranks fused with the PageRank walk (weight 1); entity hits only seed"),
    _fused("passage+walk0.33", ("passage", "entity"), "as passage+walk, walk weight 0.33", walk_weight=0.33),
    _fused("passage+walk_hybrid_prior", ("passage", "entity"), "passage+walk, walk prior dense + keyword",
           prior="hybrid"),
    _fused("chunk+walk", ("chunk", "entity"), "the chunk method's ranks (dense + keyword) fused with the walk"),
    _fused("passage+walk_skip", ("passage", "entity"),
           "passage+walk, no walk when the query names no entity", unnamed="skip"),
    _fused("dense+keyword+walk", ("passage", "keyword", "entity"),
           "the passages' dense and keyword ranks, each its own vote, fused with the walk (weight 0.5)",
           walk_weight=0.5),
    _fused("dense+keyword+walk_skip", ("passage", "keyword", "entity"),
           "dense+keyword+walk, no walk when the query names no entity", walk_weight=0.5, unnamed="skip"),
    _fused("passage+walk0.5", ("passage", "entity"),
           "the first GRAPH_HYBRID: dense passages fused with the walk at weight 0.5 (k = 60)", walk_weight=0.5),
    GRAPH_HYBRID.replace(name="GRAPH_HYBRID_limit10", description="GRAPH_HYBRID cut at 10 passages (fewer documents)",
                         limit=10),
    GRAPH_HYBRID.replace(name="GRAPH_HYBRID_k60", description="GRAPH_HYBRID with the default RRF constant k = 60",
                         **{"fusion.k": None}),
    _fused("walk5+dense+kw0.5_fallback", ("passage", "keyword", "entity"),
           "walk5+dense+kw0.5_k10, but the walk starts from the top 3 entity hits when the query names none",
           walk_weight=5.0, k=10, keyword=0.5, limit=30),
    _fused("walk10+dense+kw0.5_k20", ("passage", "keyword", "entity"),
           "walk5+dense+kw0.5_k10 with walk weight 10 and k = 20", walk_weight=10.0, k=20, keyword=0.5, unnamed="skip", limit=30),
    _fused("walk5+dense+kw1", ("passage", "keyword", "entity"),
           "walk5+dense+kw0.5_k10 with the keyword leg at full weight", walk_weight=5.0, k=10, keyword=1.0, unnamed="skip", limit=30),
    _fused("walk5+dense+kw0.5_k10", ("passage", "keyword", "entity"),
           "walk weight 5, keyword 0.5, k = 10: the centre of the flat region of the search grid (passes on "
           "MuSiQue and the workshop set, not on SciFact's nDCG@10)",
           walk_weight=5.0, k=10, keyword=0.5, unnamed="skip", limit=30),
    _fused("walk5+dense", ("passage", "entity"),
           "walk5+dense+kw0.5_k10 without the keyword leg", walk_weight=5.0, k=10, unnamed="skip", limit=30),
)


def systems() -> list[Recipe]:
    """The recipes of the comparison: the built-ins, the recommended one, then the variants."""
    seen = {r.name for r in BUILTINS.values()}
    extra = [r for r in (RECOMMENDED, *VARIANTS) if r.name not in seen]
    return [*BUILTINS.values(), *extra]


def benchmarks(root: Path) -> dict[str, Callable[[], Benchmark]]:
    """Benchmark name -> loader (loaders raise DatasetError when the data is not on this machine)."""
    from agrag_lab.eval import musique, scifact, workshop
    from agrag_lab.eval.graphrag_bench import medical
    from agrag_lab.eval.loaders import scifact_path

    return {
        "musique": musique,
        "workshop": workshop,
        "scifact": lambda: scifact(scifact_path())
        .sample(SCIFACT_QUERIES)
        .with_corpus(SCIFACT_CORPUS, name=f"scifact-{SCIFACT_QUERIES}q-{SCIFACT_CORPUS}"),
        "medical": lambda: medical(cache=root / "embeddings"),
    }


def evaluate_one(graph: Graph, bench: Benchmark, recipes: Sequence[Recipe], runs: Path | None = None) -> EvalResult:
    """Every recipe and the baselines on ``bench``; coverage-scored where the benchmark asks for it.

    ``runs``: a folder of per-system run files (:mod:`agrag_lab.eval.runcache`); a system whose
    recipe, index and queries are unchanged is read back, not run again.
    """
    from agrag_lab.eval import evaluate
    from agrag_lab.eval.graphrag_bench import coverage_result, is_coverage_benchmark

    result = evaluate(
        graph, bench, list(recipes), metrics=("recall@2", "recall@5", "recall@10", "ndcg@10", "mrr"), cache=runs,
        progress=lambda m: print(m, file=sys.stderr, flush=True),
    )
    return coverage_result(result, bench) if is_coverage_benchmark(bench) else result


def rule(result: EvalResult, name: str, primary: str, extra: Sequence[str] = ()) -> tuple[bool, str]:
    """Issue 16's rule for ``name`` on one benchmark: not below the best baseline on the primary (and
    extra) metrics, and never significantly worse on any metric."""
    ref = result.system(result.reference)
    me = result.system(name)
    problems = [
        f"{m} {me.mean[m]:.3f} < {ref.mean[m]:.3f}"
        for m in (primary, *extra)
        if me.mean[m] < ref.mean[m] - 1e-9
    ]
    problems += [
        f"{m} significantly worse (p = {result.p_values[name][m]:.3g})"
        for m in result.metrics
        if result.significant(name, m) and me.mean[m] < ref.mean[m]
    ]
    return (not problems, "; ".join(problems) or "met")


def _cell(result: EvalResult, name: str, metric: str) -> str:
    if name not in result.names:
        return ""
    s = result.system(name)
    mark = ""
    if name != result.reference and result.significant(name, metric):
        mark = "*" if s.mean[metric] > result.system(result.reference).mean[metric] else "-"
    value = f"{s.mean[metric]:.3f}{mark}"
    return f"**{value}**" if name == result.reference else value


def overview(results: dict[str, EvalResult], skip: Collection[str] = ()) -> list[str]:
    """One table: every system on every benchmark (primary metric, SciFact also nDCG@10 and Recall@10), less
    ``skip`` (the variants: every figure of theirs is in ``benchmarks/results/retrieval.md``)."""
    columns = [(b, PRIMARY[b]) for b in results] + [(b, m) for b in results for m in EXTRA.get(b, ())]
    names: list[str] = []
    for r in results.values():
        names += [n for n in r.names if n not in names and n not in skip]
    head = "| system | " + " | ".join(f"{b} {m}" for b, m in columns) + " |"
    lines = [head, "|---|" + "---|" * len(columns)]
    for n in names:
        lines.append(f"| {n} | " + " | ".join(_cell(results[b], n, m) for b, m in columns) + " |")
    return lines


def loaded_benchmarks(root: Path, only: Sequence[str] | None, notes: list[str]) -> Iterator[tuple[str, Benchmark]]:
    """Each benchmark of :func:`benchmarks` that ``only`` names and this machine has, loaded; a note for the others."""
    for name, load in benchmarks(root).items():
        if only is not None and name not in only:
            notes.append(f"- {name}: not measured in this run")
            continue
        try:
            bench = load()
        except Exception as exc:  # a data set that is not on this machine must not lose the others
            notes.append(f"- {name}: not measured ({type(exc).__name__}: {exc})")
            continue
        yield name, bench


def section(
    root: Path,
    embedder: Embedder | None = None,
    opened: dict[str, Graph] | None = None,
    only: Sequence[str] | None = None,
    save: Path | None = SAVED,
) -> tuple[str, list[str]]:
    """The Markdown section of ``BENCHMARKS.md``: results, the rule, the per-group verdicts.

    ``only`` names the benchmarks to run (default: all four); the others are reported as not measured.
    ``save``: a JSON file for the results (:func:`save_results`), which notebook 07 reads.
    """
    from agrag_lab.eval.graph_help import graph_help, verdict_markdown
    from agrag_lab.eval.indexing import ensure_index
    from agrag_lab.graph import Graph

    recipes = systems()
    results: dict[str, EvalResult] = {}
    notes: list[str] = []
    timings: dict[str, float] = {}
    for name, bench in loaded_benchmarks(root, only, notes):
        started = time.perf_counter()
        graph = (opened or {}).get(name)
        if graph is None:
            path = root / name
            ensure_index(path, bench, embedder=embedder, log=lambda m: print(m, file=sys.stderr))
            with Graph.open(path, embedder=embedder, read_only=True) as g:
                results[name] = evaluate_one(g, bench, recipes, root / "runs" / name)
        else:
            results[name] = evaluate_one(graph, bench, recipes, root / "runs" / name)
        timings[name] = time.perf_counter() - started
        print(results[name].table(), file=sys.stderr)
    lines = [
        "Every recipe on every benchmark we have, against the three baselines on the same index; "
        f"MuSiQue-100 (multi-hop), the workshop questions, SciFact (single-hop claims: {SCIFACT_QUERIES} of the 300 "
        f"test claims, SHA-1 sample, over {SCIFACT_CORPUS} of the 5,183 abstracts: the ones they cite plus "
        "distractors by SHA-1 of the id; comparable between systems, not with BEIR's full-corpus figures) and "
        "GraphRAG-Bench Medical (75 questions per type, SHA-1 sample; evidence coverage, see "
        "`datasets/graphrag_bench_medical/NOTES.md`). Bold: the best baseline (the reference); `*`/`-`: "
        "significantly better/worse than it, paired t-test from ranx, p < 0.05.",
        "",
        *overview(results, skip={v.name for v in VARIANTS if v.name != RECOMMENDED.name}),
        "",
        "The variants tried on the way to the recommended recipe are rows of `benchmarks/results/retrieval.md`.",
        "",
        f"**The rule for the recommended recipe {RECOMMENDED.name}** (not below the best baseline on the "
        "primary metric, nor on SciFact's nDCG@10 / Recall@10; never significantly worse on any metric):",
        "",
        "| benchmark | reference | " + RECOMMENDED.name + " | p | verdict |",
        "|---|---|---|---|---|",
    ]
    for b, r in results.items():
        if RECOMMENDED.name not in r.names:
            continue
        ok, why = rule(r, RECOMMENDED.name, PRIMARY[b], EXTRA.get(b, ()))
        p = r.p_values.get(RECOMMENDED.name, {}).get(PRIMARY[b], float("nan"))
        lines.append(
            f"| {b} | {r.reference} {r.system(r.reference).mean[PRIMARY[b]]:.3f} | "
            f"{r.system(RECOMMENDED.name).mean[PRIMARY[b]]:.3f} | {p:.3g} | {'met' if ok else 'NOT met: ' + why} |"
        )
    lines += ["", *notes] if notes else []
    if not results:
        return (TITLE, [*lines, *notes])
    reports = report_lines(results, timings)
    if save is None:
        lines += reports
    else:
        save_results(results, save)
        save.with_suffix(".md").write_text("\n".join([f"# {TITLE}: every metric", *reports, ""]), encoding="utf-8")
        lines += ["", f"Every metric of every system, per benchmark and question group (ranx's report, the "
                  f"superscripts naming the systems each mean is significantly above): "
                  f"`benchmarks/results/{save.with_suffix('.md').name}`, written by the same run."]
    verdicts = graph_help(
        list(results.values()), RECOMMENDED.name, metrics={r.benchmark: PRIMARY[b] for b, r in results.items()}
    )
    lines += [
        "",
        f"**When does the graph help?** {RECOMMENDED.name} against the best system that reads no graph "
        "(bm25, dense, bm25+dense, CHUNK), per benchmark and question group; `winner` is the best of all systems "
        "in the group (chart: `agrag_lab.charts.graph_help_chart`, notebook 07).",
        "",
        *verdict_markdown(verdicts),
    ]
    if save is not None:
        lines += ["", *chart_lines(verdicts, save.with_name("graph_help.png"))]
    return (TITLE, lines)


def report_lines(results: dict[str, EvalResult], timings: dict[str, float]) -> list[str]:
    """Each benchmark's ranx report of every metric (and per question group), as Markdown lines."""
    lines: list[str] = []
    for b, r in results.items():
        lines += ["", f"**{b}**, every metric ({len(r.queries)} questions, {timings[b]:.0f} s):", "", "```", r.table(), "```"]
        if r.groups:
            lines += ["", "```", r.group_table(PRIMARY[b]), "```"]
    return lines


def chart_lines(verdicts: Sequence[Any], png: Path) -> list[str]:
    """Draw the "when does the graph help?" chart as ``png`` and return the Markdown that shows it."""
    from agrag_lab.charts.graph_help import graph_help_chart
    from benchmarks.figures import save_png

    try:
        save_png(graph_help_chart(verdicts), png)
    except Exception as exc:  # no Chromium here: the table above says it all, the picture is a convenience
        return [f"(chart not drawn: {type(exc).__name__}: {exc}; notebook 07 draws it)"]
    return [f"![When does the graph help? The graph recipe minus the best system without the graph, per group]"
            f"(benchmarks/results/{png.name})"]


def save_results(results: dict[str, EvalResult], path: Path) -> None:
    """Write the results (benchmark name -> :meth:`EvalResult.to_dict`, rankings left out to keep it small).

    Benchmarks already in the file and not in ``results`` are kept, so a run of one benchmark
    does not lose the others.
    """
    import json

    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for name, result in results.items():
        d = result.to_dict()
        for s in d["systems"]:
            s["rankings"] = {}
        data[name] = d
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")


def section_main(
    make_section: Callable[..., tuple[str, list[str]]], description: str | None, default_out: str,
    argv: Sequence[str] | None = None,
) -> int:
    """The command line of a section over the four benchmarks: ``--index-root``, ``--out``, ``--only``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--index-root", default=".agrag/bench")
    parser.add_argument("--out", default=default_out)
    parser.add_argument("--only", default="", help="comma-separated benchmarks (default: all four)")
    args = parser.parse_args(argv)
    only = [b.strip() for b in args.only.split(",") if b.strip()] or None
    title, lines = make_section(Path(args.index_root), only=only)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join([f"## {title}", "", *lines, ""]), encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


def redraw_chart() -> int:
    """Redraw the "when does the graph help?" chart from the saved results (no evaluation re-run)."""
    import json

    from agrag_lab.eval import EvalResult
    from agrag_lab.eval.graph_help import graph_help
    from agrag_lab.recipes import RECOMMENDED

    full = {name: EvalResult.from_dict(data) for name, data in json.loads(SAVED.read_text()).items()}
    verdicts = graph_help(list(full.values()), RECOMMENDED.name,
                          metrics={r.benchmark: PRIMARY[name] for name, r in full.items()})
    print("\n".join(chart_lines(verdicts, SAVED.with_name("graph_help.png"))))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The section over the four benchmarks; ``chart`` alone redraws its chart from the saved results."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["chart"]:
        return redraw_chart()
    return section_main(section, __doc__, "reports/retrieval.md", args)


if __name__ == "__main__":
    raise SystemExit(main())
