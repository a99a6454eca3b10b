"""``make bench``: every performance figure of the project, measured in one run.

Puts each section it measured in place in ``BENCHMARKS.md``, stamped with the date
and the machine, and keeps every other section (the notes beside the figures, the
Scale section of ``make bench-scale``: :mod:`benchmarks.benchmarks_md`). Every figure that has
a target is reported as a ratio against a baseline measured in the same run,
because these machines are noisy.

Run: ``python -m benchmarks.run [--index-root .agrag/bench] [--out BENCHMARKS.md]``; ``--only cli,mcp,rerank,notebook``
(``make bench-startup``) measures only those sections, on the workshop index, and puts them in place in ``--out``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agrag_lab import Graph
from agrag_lab.datasets import musique, workshop
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.recipes import HYBRID, RECIPES
from agrag_lab.retrieval.methods import FACETS_PER_ITEM
from benchmarks import fusion, rerank, retrieval
from benchmarks.benchmarks_md import Section, update
from benchmarks.importing import TITLE as IMPORT_TITLE
from benchmarks.importing import bench_import
from benchmarks.ingest import bench_ingest
from benchmarks.linear_graph import DEMO_BUDGET_S, demo_budget, demo_tri_graphs
from benchmarks.timing import timed

DEMO_TITLE = "The demo (issue 6)"
GRAPH_TITLE = "Knowledge graph (issue 3)"
ENGINE_TITLE = "Search engine (issue 4)"
QUALITY_TITLE = "Retrieval quality (issue 6)"
#: The sections each module measures with its ``bench(target)``, by module: its title, and which index it reads
#: (``"musique"``, ``"workshop"``, or ``"both"`` by corpus name).
OPTIONAL: tuple[tuple[str, str, str], ...] = (
    ("benchmarks.evidence", "Evidence functions (issue 5)", "musique"),
    ("benchmarks.workbench", "Workbench (issue 7)", "workshop"),
    ("benchmarks.agent", "Agent (issue 8)", "workshop"),
    # AFTER figures of issue 15 from both indexes built above; BEFORE from benchmarks/extract_before.json
    ("benchmarks.extract", "Graph quality: the rule extractor and the LLM path (issue 15)", "both"),
    ("benchmarks.graph_explorer", "Graph explorer (issue 17)", "musique"),
)
#: A make step of the fresh-clone demo that runs longer than this is reported as failed.
DEMO_TIMEOUT_S = 1800


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def percentiles(samples: Sequence[float]) -> tuple[float, float]:
    """p50 and p95 of ``samples`` (seconds)."""
    arr = np.asarray(samples)
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 95))


def bench_graph(graph: Graph) -> Section:
    from agrag_lab.kg.diagnostics import musique_linkage

    store = graph.graph_store
    start = time.perf_counter()
    graph.sync()
    build_s = time.perf_counter() - start
    store = graph.graph_store
    data = musique()
    chunks_of: dict[str, list[str]] = {}
    for chunk, _ in graph.db.current_chunks():
        chunks_of.setdefault(chunk.document_id, []).append(chunk.id)
    gold = [
        tuple(c for d, rel in data.qrels[q].items() if rel > 0 for c in chunks_of.get(d, ()))
        for q in data.queries
    ]
    share = musique_linkage(store, [g for g in gold if g])
    lines = [
        "| measure | value |",
        "|---|---|",
        f"| entities / relations | {len(store.entities())} / {len(store.graph.edges)} |",
        f"| communities / reports | {len(store.communities())} / {len(store.reports())} |",
        f"| graph build from cached extractions (sync) | {build_s:.1f} s |",
        f"| MuSiQue questions whose gold passages are linked within two hops | {share:.1%} |",
    ]
    return (GRAPH_TITLE, lines)


def bench_engine(graph: Graph) -> Section:
    ds = musique()
    queries = list(ds.queries.values())[:40]
    engine = graph.engine()
    lines = ["| recipe | p50 | p95 |", "|---|---|---|"]
    for name, recipe in RECIPES.items():
        if recipe.rerank.kind == "cross_encoder":  # no trained cross-encoder on this offline machine
            recipe = recipe.replace(**{"rerank.model": str(rerank.cross_encoder())})
        engine.run(queries[0], recipe)
        samples = [t for q in queries for t in timed(functools.partial(engine.run, q, recipe), 1)]
        p50, p95 = percentiles(samples)
        lines.append(f"| {name} | {_ms(p50)} | {_ms(p95)} |")
    lines += ["", "HYBRID_RERANKED's cross-encoder is the bundled MiniLM encoder with an untrained head (no trained "
              "cross-encoder is on this offline machine): the time is a MiniLM-L6 cross-encoder's. The first query "
              "of each recipe is run before timing."]
    # parallelism: HYBRID wall time against its slowest method
    ratios, overhead = [], []
    store, vectors = graph.graph_store, graph.vector_store
    for q in queries:
        run = engine.run(q, HYBRID)
        slowest = max(m.seconds for m in run.trace.methods)
        ratios.append(dict(run.trace.spans)["methods"] / slowest)  # the concurrent phase's wall time
        vec = graph.embedder.embed_query(q)
        start = time.perf_counter()
        for collection in ("entities", "chunks"):  # the calls the methods make, one after another
            want = HYBRID.candidates * (FACETS_PER_ITEM if collection == "entities" else 1)
            vectors.query(collection, vec, want)
            store.keyword_index(collection).search(q, want)
        raw = time.perf_counter() - start
        start = time.perf_counter()
        engine.run(q, HYBRID)
        total = time.perf_counter() - start  # includes the query embedding
        start = time.perf_counter()
        graph.embedder.embed_query(q)
        embed = time.perf_counter() - start
        overhead.append(total / (raw + embed))
    lines += [
        "",
        "| measure | value |",
        "|---|---|",
        f"| HYBRID methods phase wall time / its slowest method (median; target <= 1.2) | **{statistics.median(ratios):.2f}** |",
        f"| HYBRID engine time / the raw store calls it makes, run one after another (median; target <= 1.3) | **{statistics.median(overhead):.2f}** |",
    ]
    # refuse latency for 3 lists of 100
    from agrag_lab.recipes import Recipe

    three = Recipe("three", ("entity", "chunk", "community"), candidates=100)
    run = engine.run(queries[1], three)
    samples = timed(lambda: run.refuse(k=10), 50)
    p50, p95 = percentiles(samples)
    lines.append(f"| `refuse` of a 3-method run with 100 candidates each (p50 / p95; target < 5 ms) | **{_ms(p50)} / {_ms(p95)}** |")
    return (ENGINE_TITLE, lines)


def _markdown_table(result: Any) -> list[str]:
    """An :class:`~agrag_lab.eval.result.EvalResult` as a Markdown table (``*``/``-``: p < 0.05)."""
    from agrag_lab.eval.result import ALPHA, format_p

    ref = result.system(result.reference)
    lines = [
        "| system | " + " | ".join(result.metrics) + " | p (R@5) | ms/query |",
        "|---|" + "---|" * (len(result.metrics) + 2),
    ]
    for s in result.systems:
        cells = []
        for m in result.metrics:
            p = result.p_values.get(s.name, {}).get(m, float("nan"))
            mark = ("*" if s.mean[m] > ref.mean[m] else "-") if p < ALPHA else ""
            value = f"{s.mean[m]:.3f}{mark}"
            cells.append(f"**{value}**" if m == "recall@5" and result.significantly_better(s.name, m) else value)
        p5 = "ref" if s.name == result.reference else format_p(result.p_values.get(s.name, {}).get("recall@5"))
        name = f"**{s.name}** (best baseline)" if s.name == result.reference else s.name
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {p5} | {s.ms_per_query:.0f} |")
    lines += [f"| {name} | skipped: {why} |" + " |" * (len(result.metrics) + 1) for name, why in result.skipped.items()]
    return lines


def bench_quality(graph: Graph, work: Graph) -> Section:
    """Every built-in and the three baselines on MuSiQue-100 and the workshop questions."""
    from agrag_lab.eval import evaluate
    from agrag_lab.eval import musique as musique_benchmark
    from agrag_lab.eval import workshop as workshop_benchmark
    from agrag_lab.eval.result import format_p

    result = evaluate(graph, musique_benchmark())
    best = result.best("recipe", "recall@5")
    ref = result.reference
    gain = result.system(best).mean["recall@5"] - result.system(ref).mean["recall@5"]
    verdict = "**met**" if result.significantly_better(best, "recall@5") else "**not met**"
    lines = [
        f"MuSiQue-100 (1,890 passages, {len(result.queries)} questions), every system on the same index; "
        "passages are the unit (entity and report hits count through their supporting passages, "
        f"`agrag_lab/eval/projection.py`). p: paired {result.stat_test} t-test (`ranx.compare`) against the "
        "best baseline; `*`/`-`: significantly better/worse at p < 0.05.",
        "",
        *_markdown_table(result),
        "",
        f"Quality target (best built-in beats the best baseline on Recall@5, significantly): {verdict}. "
        f"Best recipe {best}: Recall@5 {result.system(best).mean['recall@5']:.3f} against {ref} "
        f"{result.system(ref).mean['recall@5']:.3f} ({gain:+.3f}, p = {format_p(result.p_values.get(best, {}).get('recall@5'))}); "
        f"wins/ties/losses per question {'/'.join(map(str, result.wins_losses(best, 'recall@5')))}. "
        "Recall@5 by hop count: `benchmarks/results/retrieval.md` (\"Retrieval on four kinds of question\").",
    ]
    small = evaluate(work, workshop_benchmark())
    lines += [
        "",
        f"Workshop questions ({len(small.queries)}, 24 documents):",
        "",
        *_markdown_table(small),
    ]
    return (QUALITY_TITLE, lines)


def _clean_env() -> dict[str, str]:
    """This process's environment without what would tie a clone to this checkout's venv."""
    drop = {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(venv))
    return env


def bench_demo(root: Path) -> Section:
    """``make demo`` as a new user meets it: a fresh clone of this checkout's last
    commit, ``make setup``, then ``make demo`` twice (first run, then cached)."""
    repo = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD")
    dirty = bool(git("status", "--porcelain", "-uno"))
    clone = root / "demo-clone"
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    env = _clean_env()

    def make(target: str) -> float:
        start = time.perf_counter()
        done = subprocess.run(["make", "-C", str(clone), target], env=env, capture_output=True, text=True,
                              timeout=DEMO_TIMEOUT_S)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
            raise RuntimeError(f"make {target} failed ({done.returncode}):\n{tail}")
        return time.perf_counter() - start

    try:
        setup, first, cached = make("setup"), make("demo"), make("demo")
        tri = demo_tri_graphs(clone / ".agrag", root)  # not part of make demo: what --extractor linear would add
    finally:
        shutil.rmtree(clone, ignore_errors=True)
    within, with_tri = demo_budget(first, tri)
    note = " (the working tree had uncommitted changes, not measured here)" if dirty else ""
    return (DEMO_TITLE, [
        f"A fresh `git clone` of commit {commit}{note}; `make setup` (a new `.venv`; pip installs uv, uv "
        "installs the project; the machine's package caches are warm), then `make demo` twice.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| `make setup` | {setup:.0f} s |",
        f"| first `make demo` (ingest the workshop corpus and MuSiQue, build their graphs, compare, evaluate) "
        f"| {first:.0f} s |",
        f"| **fresh checkout to finished demo** (target 10 min) | **{(setup + first) / 60:.1f} min** |",
        f"| **`make demo` again, indexes cached** (target 2 min) | **{cached:.0f} s** |",
        "| the tri-graph of its two corpora (`--extractor linear`, on copies of the demo's indexes; x a raw encode) "
        f"| {' + '.join(f'{c.benchmark} {c.tri_graph_s:.0f} s ({c.tri_ratio:.2f}x)' for c in tri)} |",
        f"| **first `make demo` + the tri-graph** (target {DEMO_BUDGET_S / 60:.0f} min) | **{with_tri:.0f} s** "
        f"({'met' if within else 'NOT met'}) |",
    ])


def _measured(title: str, measure: Callable[[], Section]) -> Section:
    """``measure()``, or a line saying why it could not be measured: one failing figure must not lose the others."""
    try:
        section = measure()
    except Exception as exc:
        section = (title, [f"(not measured: {type(exc).__name__}: {exc})"])
    print(section, file=sys.stderr)
    return section


def bench_optional(graph: Graph, work: Graph) -> list[Section]:
    """The sections each module measures with its ``bench(target)``: the evidence, widget and agent figures, graph
    quality, the graph explorer, and every start-up and re-rank target of issue 30 (:data:`ONLY`'s modules)."""
    targets: dict[str, Any] = {"musique": graph, "workshop": work, "both": {"musique": graph, "workshop": work}}
    modules: tuple[tuple[str, str, Any], ...] = (
        *((module, title, targets[key]) for module, title, key in OPTIONAL),
        *((module, _title_of(module), work) for module in ONLY.values()),
    )
    return [_measured(title, functools.partial(_module_section, module, title, target))
            for module, title, target in modules]


def titles() -> list[str]:
    """Every section title ``make bench`` and ``make bench-startup`` write, in the order ``make bench`` writes them."""
    from benchmarks import importing, ingest

    return [ingest.TITLE, GRAPH_TITLE, ENGINE_TITLE, fusion.TITLE, QUALITY_TITLE, retrieval.TITLE,
            *(title for _, title, _ in OPTIONAL), *(_title_of(module) for module in ONLY.values()),
            importing.TITLE, DEMO_TITLE]


def _title_of(module: str) -> str:
    """The ``TITLE`` of a section module (:data:`ONLY`'s): the heading its section has in BENCHMARKS.md."""
    title: str = __import__(module, fromlist=["TITLE"]).TITLE
    return title


def _module_section(module: str, title: str, target: Any) -> Section:
    """``module``'s ``bench(target)`` (a Graph, or graphs by corpus) as a section: its lines, or its figures as a
    table. The import is part of the measurement: a module that cannot be imported is a section not measured."""
    bench: Callable[[Any], list[str] | dict[str, Any]] = __import__(module, fromlist=["bench"]).bench
    result = bench(target)
    if isinstance(result, list):
        return (title, result)
    return (title, ["| measure | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in result.items()])


#: Sections ``--only`` can run alone on the workshop index: name -> (module with ``TITLE`` and ``bench(graph)``).
#: ``--only cli,mcp,rerank,notebook`` measures every start-up and re-rank target of issue 30 in one run.
ONLY = {
    "cli": "benchmarks.cli_startup",
    "mcp": "benchmarks.mcp_startup",
    "rerank": "benchmarks.rerank",
    "notebook": "benchmarks.notebook_run",
}


def run_only(names: Sequence[str], root: Path, out: Path) -> int:
    """Measure only the sections ``names`` (see :data:`ONLY`) on the workshop index, in one run; update ``out``."""
    unknown = [n for n in names if n not in ONLY]
    if unknown:
        raise SystemExit(f"unknown section(s) {unknown}: choose from {', '.join(ONLY)}")
    embedder = SentenceTransformerEmbedder()
    work = Graph.open(root / "workshop", embedder=embedder)
    ws = workshop()
    work.ingest(ws.documents)
    work.ingest(ws.revisions)
    work.close()
    sections: list[Section] = []
    with Graph.open(root / "workshop", embedder=embedder, read_only=True) as graph:
        for name in names:
            title = _title_of(ONLY[name])
            sections.append(_measured(title, functools.partial(_module_section, ONLY[name], title, graph)))
    stamp = (f"Measured {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.node()} "
             f"(`python -m benchmarks.run --only {','.join(names)}`, one run; 1-minute load average at the end "
             f"{os.getloadavg()[0]:.1f}).")
    update(out, sections, stamp)
    print(f"updated {', '.join(t for t, _ in sections)} in {out}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--index-root", default=".agrag/bench")
    parser.add_argument("--out", default="BENCHMARKS.md")
    parser.add_argument("--only", default="", help=f"comma-separated sections to measure alone ({', '.join(ONLY)}); "
                        "they replace their sections in --out, the rest is kept")
    args = parser.parse_args(argv)
    root = Path(args.index_root)
    root.mkdir(parents=True, exist_ok=True)
    if args.only:
        return run_only([n.strip() for n in args.only.split(",") if n.strip()], root, Path(args.out))
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    sections: list[Section] = []
    ingest_section, graph = bench_ingest(root, embedder)
    sections.append(ingest_section)
    print(ingest_section, file=sys.stderr)
    work = Graph.open(root / "workshop", embedder=embedder)
    ws = workshop()
    work.ingest(ws.documents)
    work.ingest(ws.revisions)
    sections.append(_measured(GRAPH_TITLE, lambda: bench_graph(graph)))
    sections.append(_measured(ENGINE_TITLE, lambda: bench_engine(graph)))
    sections.append(_measured(fusion.TITLE, fusion.section))
    sections.append(_measured(QUALITY_TITLE, lambda: bench_quality(graph, work)))
    sections.append(_measured(retrieval.TITLE, lambda: retrieval.section(root, embedder, {"musique": graph, "workshop": work})))
    sections += bench_optional(graph, work)
    sections.append(_measured(IMPORT_TITLE, lambda: bench_import(root, embedder)))
    sections.append(_measured(DEMO_TITLE, lambda: bench_demo(root)))  # last: it needs both cores to itself
    # The sections measured here replace theirs; every other one is kept: the notes beside the figures, the
    # Scale section (`make bench-scale`, hours, writes it) and what other targets measured.
    stamp = (f"Measured {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.node()} "
             f"({platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}), one run of "
             "`make bench`; ratios are against baselines measured in the same run.")
    update(Path(args.out), sections, stamp)
    graph.close()
    work.close()
    print(f"updated {len(sections)} sections in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
