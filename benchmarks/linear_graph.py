"""The rule graph against LinearRAG's tri-graph on the four benchmarks, and the recommended recipe chosen again
(issue 45).

For each benchmark (smallest first: workshop, SciFact, Medical, MuSiQue-100), in one process:

1. the rule index is ingested (``<root>/<name>``; reused when it is there);
2. **raw encode**: the index's passages embedded once more with the same model, timed;
3. **tri-graph build**: a copy of the index (``<root>/<name>-linear``) rebuilt with ``--extractor linear``
   (spaCy entities, sentence nodes, every entity and sentence text embedded), timed;
4. **rule graph build**: a second copy rebuilt from the tri-graph back to the rule graph, timed, then removed;
5. every system of :func:`systems` on both indexes (rankings cached per system under ``<root>/runs/``), scored
   together (the baselines read only the passages: once), with paired t-tests (ranx) against the best baseline,
   between the two graphs for each recipe, and of every candidate against ``GRAPH_EXPAND`` on the rule graph.

The candidates for the recommended recipe (:data:`CANDIDATES`) are judged by issue 16's rule
(:func:`benchmarks.retrieval.rule`) plus issue 45's: not below ``GRAPH_EXPAND`` on the multi-hop benchmark.
``--held-out`` scores the systems on questions kept aside, to judge the choice afterwards (never to make it):
GraphRAG-Bench Medical's outside the 75-per-type sample the four benchmarks use (the same corpus and index: nothing
else to build; per question type, its "Complex Reasoning" the multi-hop ones) and SciFact's next 100 claims by the
sample's SHA-1 rule over their own 400-abstract sub-corpus (:func:`held_out_scifact`). MuSiQue-100's questions are all
the bundled ones: none is kept aside. ``--costs-only`` times the builds alone.

Run: ``nice -n 10 python -m benchmarks.linear_graph --root .agrag/linbench --only workshop,scifact,medical,musique``
(writes ``benchmarks/results/linear_graph.json`` and ``.md``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agrag_lab.recipes import CHUNK, ENTITY, GRAPH_EXPAND, GRAPH_HYBRID, HYBRID, FusionSettings, Recipe
from benchmarks.retrieval import EXTRA, PRIMARY, VARIANTS, rule

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.eval.benchmark import Benchmark
    from agrag_lab.eval.result import EvalResult

TITLE = "LinearRAG's tri-graph and the recommended recipe on four benchmarks (issue 45)"
#: The benchmarks in the order they are run (the smallest corpus first).
ORDER = ("workshop", "scifact", "medical", "musique")
#: The multi-hop benchmark, where the recommended recipe must reach GRAPH_EXPAND.
MULTI_HOP = "musique"
#: The two graphs of each corpus: label -> extractor.
GRAPHS = {"rules": "rules", "linear": "linear"}
#: Embedding batch of the raw encode (the ingest's own batch size).
BATCH = 16
#: ``make demo``'s budget for the whole demo, seconds (issue 45: under 5 minutes).
DEMO_BUDGET_S = 300.0
#: The corpora ``make demo`` ingests.
DEMO_CORPORA = ("workshop", "musique")
SAVED = Path(__file__).with_name("results") / "linear_graph.json"


def _linear_leg(name: str, weight: float, description: str) -> Recipe:
    weights = {**GRAPH_HYBRID.fusion.weights, "linear_ppr": weight}
    return GRAPH_HYBRID.replace(
        name=name, methods=(*GRAPH_HYBRID.methods, "linear_ppr"),
        fusion=FusionSettings(k=GRAPH_HYBRID.fusion.k, weights=weights, convention=GRAPH_HYBRID.fusion.convention),
        description=description,
    )


#: The two variants of issue 16's search nearest GRAPH_HYBRID that reached GRAPH_EXPAND on MuSiQue-100 then
#: (BENCHMARKS.md, "Retrieval on four kinds of question": the centre of the flat region, and the heavier walk).
SEARCHED = ("walk5+dense+kw0.5_k10", "walk10+dense+kw0.5_k20")
#: Candidates for the recommended recipe besides GRAPH_HYBRID itself: those two, and LINEARRAG's ranking (entity activation
#: through the question's nearest sentences, then PageRank; the dense order when the question names nothing) as
#: one more RRF leg of GRAPH_HYBRID. It reads no label of a kind of question: with no entity named it adds the
#: dense order again, so single-hop questions keep GRAPH_HYBRID's ranking in substance.
CANDIDATES: tuple[Recipe, ...] = (
    *(v for v in VARIANTS if v.name in SEARCHED),
    _linear_leg("GRAPH_HYBRID+linear1", 1.0, "GRAPH_HYBRID with LINEARRAG's passages as one more RRF leg (weight 1)"),
)
#: Candidates not run on the rule graph: the LINEARRAG leg fell below the best baseline on the workshop questions
#: there (R@5 .900 against dense .950, weights 1 and 2; weight 2 also below weight 1 on the tri-graph, dropped).
TRI_GRAPH_ONLY = frozenset({"GRAPH_HYBRID+linear1"})


def linearrag() -> Recipe:
    """The LINEARRAG peer recipe (``recipes/peers/linearrag.toml``)."""
    from agrag_lab.recipes import peers

    return peers()["LINEARRAG"]


def systems(label: str) -> list[Recipe]:
    """The recipes run on the index ``label``: on the rule graph also the passage and entity built-ins (CHUNK
    reads the same passages on both graphs, ENTITY and HYBRID would search sentences on the tri-graph)."""
    graph_recipes = [GRAPH_EXPAND, GRAPH_HYBRID, linearrag(), *CANDIDATES]
    if label != "rules":
        return graph_recipes
    return [CHUNK, ENTITY, HYBRID, *(r for r in graph_recipes if r.name not in TRI_GRAPH_ONLY)]


@dataclass(frozen=True)
class BuildCost:
    """One corpus's build times in one process (seconds; comparable only as ratios under shared load)."""

    benchmark: str
    passages: int
    raw_encode_s: float
    rule_graph_s: float
    tri_graph_s: float
    tri_texts: int = 0
    ingest_s: float | None = None  # the rule index's ingest (encode + rule graph), when this run built it
    stats: Mapping[str, Any] = field(default_factory=dict)

    @property
    def tri_ratio(self) -> float:
        """The tri-graph's build time over the raw encode of the same passages."""
        return self.tri_graph_s / self.raw_encode_s

    @property
    def rule_ratio(self) -> float:
        """The rule graph's build time over the raw encode."""
        return self.rule_graph_s / self.raw_encode_s


def demo_budget(first_demo_s: float, costs: Sequence[BuildCost], budget_s: float = DEMO_BUDGET_S) -> tuple[bool, float]:
    """Whether ``make demo`` with the tri-graph of its corpora stays within ``budget_s``: (within, projected s).

    ``first_demo_s`` is a first ``make demo`` (it ingests both corpora and builds their rule graphs); each corpus's
    tri-graph adds its build time. Where the demo and the builds were not timed in one run, scale the builds by
    their ratio to a raw encode measured with them (:attr:`BuildCost.tri_ratio`) first: under shared load only
    ratios carry over.

    Examples
    --------
    >>> c = BuildCost("workshop", 10, raw_encode_s=10.0, rule_graph_s=1.0, tri_graph_s=15.0)
    >>> demo_budget(170.0, [c])
    (True, 185.0)
    >>> demo_budget(290.0, [c])
    (False, 305.0)
    """
    total = first_demo_s + sum(c.tri_graph_s for c in costs)
    return (total <= budget_s, total)


def demo_tri_graphs(index_root: Path, work: Path) -> list[BuildCost]:
    """The tri-graph of each demo corpus (:data:`DEMO_CORPORA`, the demo's indexes under ``index_root``) built on
    a copy under ``work``, each timed with a raw encode of its passages (the copies are removed)."""
    from agrag_lab.embedding import embedder_for
    from agrag_lab.graph import Graph

    model = embedder_for(None)
    costs = []
    for name in DEMO_CORPORA:
        with Graph.open(index_root / name, embedder=model, read_only=True) as graph:
            texts = [c.text for c, _ in graph.db.current_chunks()]
        model.embed(texts[:BATCH])
        raw = _encode(model, texts)
        target = work / f"{name}-linear"
        tri_s, stats = _rebuild(index_root / name, target, "linear", model)
        shutil.rmtree(target)
        costs.append(BuildCost(name, len(texts), raw, 0.0, tri_s, 0, None, stats))
    return costs


def scaled(cost: BuildCost, raw_encode_s: float) -> BuildCost:
    """``cost`` as it would be where the same raw encode takes ``raw_encode_s`` (its ratios kept).

    Examples
    --------
    >>> scaled(BuildCost("w", 10, raw_encode_s=50.0, rule_graph_s=5.0, tri_graph_s=75.0), 20.0).tri_graph_s
    30.0
    """
    f = raw_encode_s / cost.raw_encode_s
    return replace(cost, raw_encode_s=raw_encode_s, rule_graph_s=cost.rule_graph_s * f, tri_graph_s=cost.tri_graph_s * f)


def _encode(embedder: Embedder, texts: Sequence[str]) -> float:
    """Seconds to embed ``texts`` as the index embeds its records (longest first, :data:`EMBED_BATCH` a step)."""
    from agrag_lab.index.build import EMBED_BATCH
    from agrag_lab.index.long_texts import embed_whole

    ordered = sorted(texts, key=len, reverse=True)
    started = time.perf_counter()
    for i in range(0, len(ordered), EMBED_BATCH):
        embed_whole(embedder, ordered[i:i + EMBED_BATCH])
    return time.perf_counter() - started


def _rebuild(source: Path, target: Path, extractor: str, embedder: Embedder | None) -> tuple[float, dict[str, Any]]:
    """Copy the index ``source`` to ``target`` and rebuild its graph with ``extractor``: (seconds, graph stats)."""
    from agrag_lab.graph import Graph
    from agrag_lab.kg.tri_vocabulary import SENTENCE

    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("runs"))
    with sqlite3.connect(target / "documents.sqlite") as db:  # every extraction is made again, none read back
        db.execute("DELETE FROM extractions")
    started = time.perf_counter()
    with Graph.open(target, extractor=extractor, embedder=embedder) as graph:
        graph.sync()
        seconds = time.perf_counter() - started
        store = graph.built_graph()
        entities = store.entities()
        sentences = sum(1 for e in entities if e.label == SENTENCE)
        stats = {**graph.stats(), "entities": len(entities) - sentences, "sentences": sentences,
                 "edges": len(store.relations())}
    return seconds, stats


def build(root: Path, name: str, bench: Benchmark, embedder: Embedder | None, *, costs: bool = True) -> BuildCost:
    """The rule index and the tri-graph index of ``bench`` under ``root``, with their build times (``costs``
    false: the tri-graph's only, no raw encode or rule-graph rebuild; its ratios are then NaN)."""
    from agrag_lab.embedding import embedder_for
    from agrag_lab.eval.indexing import ensure_index
    from agrag_lab.graph import Graph

    model = embedder or embedder_for(None)
    rules, linear = root / name, root / f"{name}-linear"
    started = time.perf_counter()
    built = ensure_index(rules, bench, embedder=model, log=_log)
    ingest_s = time.perf_counter() - started if built else None
    with Graph.open(rules, embedder=model, read_only=True) as graph:
        texts = [c.text for c, _ in graph.db.current_chunks()]
    cost_file = root / f"{name}-linear.cost.json"
    if linear.exists() and cost_file.exists():  # every time of this corpus was measured in one earlier run
        saved = json.loads(cost_file.read_text(encoding="utf-8"))
        raw, tri_s, rule_s, stats = saved["raw_encode_s"], saved["tri_graph_s"], saved["rule_graph_s"], saved["stats"]
        ingest_s = saved.get("ingest_s")
    elif not costs:
        tri_s, stats = _rebuild(rules, linear, "linear", model)
        raw = rule_s = float("nan")
    else:
        model.embed(texts[:BATCH])  # the model is loaded and warm before anything is timed
        raw = _encode(model, texts)
        _log(f"{name}: raw encode of {len(texts)} passages {raw:.1f} s")
        tri_s, stats = _rebuild(rules, linear, "linear", model)
        _log(f"{name}: tri-graph {tri_s:.1f} s ({stats})")
        back = root / f"{name}-rules-again"
        rule_s, _ = _rebuild(linear, back, "rules", model)
        shutil.rmtree(back)
        _log(f"{name}: rule graph {rule_s:.1f} s")
        cost_file.write_text(json.dumps({"raw_encode_s": raw, "tri_graph_s": tri_s, "rule_graph_s": rule_s,
                                         "stats": stats, "ingest_s": ingest_s}), encoding="utf-8")
    return BuildCost(name, len(texts), raw, rule_s, tri_s, int(stats.get("entities", 0)) + int(stats.get("sentences", 0)), ingest_s, stats)


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def evaluate_both(root: Path, name: str, bench: Benchmark, embedder: Embedder | None) -> EvalResult:
    """Every system on both graphs of ``name``, scored together: ``RECIPE @ rules`` / ``RECIPE @ linear`` and
    the baselines once; ``config["across_indexes"]`` holds each recipe's paired test between the graphs and
    ``config["against_expand"]`` each recipe's against ``GRAPH_EXPAND @ rules``."""
    from agrag_lab.eval import evaluate
    from agrag_lab.eval.across import system_name
    from agrag_lab.eval.graphrag_bench import coverage_result, is_coverage_benchmark
    from agrag_lab.eval.harness import score_runs
    from agrag_lab.eval.systems import SystemRun
    from agrag_lab.graph import Graph

    runs: list[SystemRun] = []
    for n, (label, folder) in enumerate((("rules", root / name), ("linear", root / f"{name}-linear"))):
        with Graph.open(folder, embedder=embedder, read_only=True) as graph:
            result = evaluate(graph, bench, systems(label), baselines=n == 0,
                              metrics=("recall@2", "recall@5", "recall@10", "ndcg@10", "mrr"),
                              cache=root / "runs" / f"{bench.name}-{label}", progress=_log)
        for s in result.systems:
            runs.append(SystemRun(s.name if s.kind == "baseline" else system_name(s.name, label), s.kind,
                                  dict(s.rankings), s.ms_per_query * len(s.rankings) / 1000.0, dict(s.failures),
                                  s.description))
    scored = score_runs(bench, runs, metrics=("recall@2", "recall@5", "recall@10", "ndcg@10", "mrr"))
    if is_coverage_benchmark(bench):
        scored = coverage_result(scored, bench)
    return scored


def paired(result: EvalResult, bench: Benchmark, pairs: Sequence[tuple[str, str]], metric: str,
           queries: Collection[str] | None = None) -> dict[str, float]:
    """Two-sided paired t-test p of each (a, b) on ``metric``'s per-question scores (``queries``: those only), keyed
    ``"a | b"``."""
    from scipy.stats import ttest_rel

    out: dict[str, float] = {}
    for a, b in pairs:
        if a not in result.names or b not in result.names:
            continue
        sa, sb = result.system(a).per_query[metric], result.system(b).per_query[metric]
        qs = [q for q in sa if q in sb and (queries is None or q in queries)]
        x, y = [sa[q] for q in qs], [sb[q] for q in qs]
        out[f"{a} | {b}"] = 1.0 if x == y else float(ttest_rel(x, y).pvalue)
    return out


def _p(value: float | None) -> str:
    from agrag_lab.eval.result import format_p

    return format_p(value)


def _metric_label(metric: str) -> str:
    return {"recall@5": "R@5", "coverage@5": "C@5", "ndcg@10": "nDCG@10", "recall@10": "R@10"}.get(metric, metric)


def benchmark_table(name: str, entry: Mapping[str, Any]) -> list[str]:
    """One benchmark's systems on both graphs: the primary metric (and nDCG@10 where judged by qrels), the paired
    p against the best baseline, between the graphs, and against ``GRAPH_EXPAND @ rules``; ms/query."""
    primary = PRIMARY[name]
    second = "ndcg@10" if primary == "recall@5" else "coverage@10"
    means, paired_p = entry["means"], entry["paired"].get(primary, {})
    expand = f"{GRAPH_EXPAND.name} @ rules"
    lines = [
        f"| system | {_metric_label(primary)} | {_metric_label(second)} | p vs {entry['reference']} | "
        f"p linear vs rules | p vs {expand} | ms/query |",
        "|---|---|---|---|---|---|---|",
    ]
    for system, m in means.items():
        recipe, _, label = system.partition(" @ ")
        other = f"{recipe} @ rules" if label == "linear" else ""
        ref = "ref" if system == entry["reference"] else _p(entry["p_reference"].get(system, {}).get(primary))
        lines.append(
            f"| {system} | {m[primary]:.3f} | {m.get(second, float('nan')):.3f} | {ref} | "
            f"{_p(paired_p.get(f'{system} | {other}')) if other else ''} | "
            f"{_p(paired_p.get(f'{system} | {expand}')) if label and system != expand else ''} | "
            f"{entry['ms_per_query'][system]:.0f} |"
        )
    return lines


def cost_table(saved: Mapping[str, Any]) -> list[str]:
    """Build times of each corpus's two graphs against a raw encode of its passages, all from one run each."""
    lines = ["| corpus | passages | raw encode | rule graph (x encode) | tri-graph (x encode) | entities | sentences "
             "| rule index ingest (encode + rule graph) |", "|---|---|---|---|---|---|---|---|"]
    for name, entry in saved.items():
        runs = entry.get("cost_runs") or [entry.get("cost")]  # a corpus timed in several runs: a row each
        for n, c in enumerate(runs, 1):
            if not c or c["raw_encode_s"] != c["raw_encode_s"]:  # not measured, or the tri-graph alone (NaN)
                continue
            lines.append(_cost_row(f"{name} (run {n})" if len(runs) > 1 else name, c))
    return lines


def _cost_row(label: str, c: Mapping[str, Any]) -> str:
    raw = c["raw_encode_s"]
    ingest = f"{c['ingest_s']:.0f} s" if c.get("ingest_s") else ""
    return (f"| {label} | {c['passages']:,} | {raw:.0f} s | {c['rule_graph_s']:.1f} s ({c['rule_graph_s'] / raw:.2f}x) | "
            f"{c['tri_graph_s']:.0f} s ({c['tri_graph_s'] / raw:.2f}x) | {c['stats'].get('entities', '')} | "
            f"{c['stats'].get('sentences', '')} | {ingest} |")


def candidate_verdicts(saved: Mapping[str, Any], graph: str = "rules") -> list[tuple[str, bool, list[str]]]:
    """Each candidate (GRAPH_HYBRID and :data:`CANDIDATES`) on ``graph``: whether it meets the rule on every
    benchmark measured and reaches ``GRAPH_EXPAND @ rules`` on :data:`MULTI_HOP`, with a cell per benchmark."""
    out: list[tuple[str, bool, list[str]]] = []
    for recipe in (GRAPH_HYBRID, *CANDIDATES):
        system = f"{recipe.name} @ {graph}"
        ok, cells = True, []
        for name in ORDER:
            entry = saved.get(name)
            if entry is None or system not in entry["means"]:
                cells.append("not measured")
                ok = False
                continue
            primary = PRIMARY[name]
            why = entry["rule"][system]
            value = entry["means"][system][primary]
            cell = f"{value:.3f}" + ("" if why == "met" else f" ({why})")
            if name == MULTI_HOP:
                expand = entry["means"][f"{GRAPH_EXPAND.name} @ rules"][primary]
                p = entry["paired"][primary].get(f"{system} | {GRAPH_EXPAND.name} @ rules")
                cell += f"; vs {GRAPH_EXPAND.name} {expand:.3f}, p {_p(p)}"
                if value < expand - 1e-9:
                    ok = False
            ok = ok and why == "met"
            cells.append(cell)
        out.append((system, ok, cells))
    return out


#: Where the tri-graph's time goes, from cProfile on a slice of MuSiQue-100 (its first 20 questions: 435 passages,
#: 2,917 entities, 1,283 sentences; ``_rebuild`` as :func:`build` runs it), 2026-12-07 03:00-03:45 UTC, load 10-15.
BUILD_PROFILE = (
    "Where the tri-graph's time goes (cProfile of the rebuild on MuSiQue-100's first 20 questions, 435 passages, "
    "load 10-15; before / after spaCy's unused pipes were dropped): embedding the entity and sentence texts 51.5 / "
    "95.6 s (48 / 60%: ONNX Runtime's `run`, 263 calls); spaCy's `pipe` 30.0 / 26.8 s (the attribute ruler 6.3 s and "
    "the lemmatizer 4.1 s of it before); loading spaCy 17.6 / 14.4 s (importing torch through thinc 9.3 s of it); "
    "assembly, Chroma and the keyword index ~8 s. Same-process A/B on that slice, two rounds in alternating order, "
    "a raw encode before each build: the whole pipeline 1.60x and 1.47x a raw encode, the trimmed one 1.45x and "
    "1.55x (means 1.53 / 1.50: the trim's gain is within the load's noise). Importing spaCy imports torch (thinc "
    "looks for it): 4.2 s against 1.9 s with torch hidden, at load 5, once per process. The floor is the embedding: the "
    "tri-graph embeds 184k sentence and 63k entity tokens against the passages' 190k (1.30x), and short texts cost "
    "more per token (one run: sentences 1.15x, entities 0.46x a raw encode of the passages; batches of 16, 32, 64, "
    "256 give bit-identical vectors and no gain beyond noise); the same texts can be embedded no cheaper without "
    "changing what LINEARRAG retrieves.",
)


def report(saved: Mapping[str, Any]) -> list[str]:
    """``benchmarks/results/linear_graph.md``: every figure of a run of this module."""
    lines = [f"# {TITLE}", "",
             "Written by `python -m benchmarks.linear_graph report SAVED.json` from the saved runs of `nice -n 10 "
             "python -m benchmarks.linear_graph --only NAMES` (a process per corpus or several; Medical with "
             "`--held-out --no-costs`) on 2 cores shared by nine engineers, load 8-28: times compare as ratios "
             "within one corpus only. Build times of Medical and MuSiQue-100 (after spaCy's unused pipes were "
             "dropped; MuSiQue three times: two processes at once, then one at lower load) from `--costs-only`, the workshop's and SciFact's "
             "from before; the held-out questions from `--held-out --held-out-only` (Medical's rankings stored by "
             "the first held-out run, scored again with `--stored-runs`). p: paired two-sided t-tests on the "
             "per-question scores (ranx's against the best baseline).", "", *BUILD_PROFILE, "",
             "## Build cost: each graph against a raw encode of the same passages", "", *cost_table(saved), ""]
    for verdict_graph in GRAPHS:
        lines += [f"## The rule for the recommended recipe, on the {verdict_graph} graph", "",
                  "Issue 16's rule (not below the best baseline on the primary metric, nor on SciFact's nDCG@10 / "
                  "Recall@10; never significantly worse) and issue 45's (not below GRAPH_EXPAND on MuSiQue):", "",
                  "| candidate | " + " | ".join(ORDER) + " | verdict |", "|---|" + "---|" * (len(ORDER) + 1)]
        for system, ok, cells in candidate_verdicts(saved, verdict_graph):
            lines.append(f"| {system} | " + " | ".join(cells) + f" | {'met' if ok else 'not met'} |")
        lines.append("")
    for name, entry in saved.items():
        lines += [f"## {name} ({entry['benchmark']}, {entry['questions']} questions)", "",
                  *benchmark_table(name, entry), ""]
        if entry.get("groups"):
            groups = sorted(entry["groups"])
            lines += [f"{_metric_label(PRIMARY[name])} per question group:", "",
                      "| system | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]
            for system in entry["means"]:
                lines.append(f"| {system} | " + " | ".join(
                    f"{entry['groups'][g].get(system, float('nan')):.3f}" for g in groups) + " |")
            lines.append("")
        held = entry.get("held_out")
        if held:
            lines += [f"### Held out: {held['benchmark']} ({held['questions']} questions, not in the sample above; "
                      "judging only)", "", *benchmark_table(name, held), ""]
            if held.get("group_paired"):
                lines += [*group_table(name, held), ""]
    return lines


#: The systems the held-out tables show per question group.
JUDGED = tuple(f"{r} @ {g}" for r in (GRAPH_HYBRID.name, GRAPH_EXPAND.name, "LINEARRAG") for g in GRAPHS)


def group_table(name: str, entry: Mapping[str, Any]) -> list[str]:
    """The primary metric of :data:`JUDGED` and the best baseline per question group, each with its paired p against
    the best baseline and against ``GRAPH_EXPAND @ rules`` over that group's questions."""
    primary, reference = PRIMARY[name], entry["reference"]
    expand = f"{GRAPH_EXPAND.name} @ rules"
    groups = sorted(entry["group_paired"])
    sizes = entry.get("group_sizes", {})
    lines = [f"{_metric_label(primary)} per question group (p vs {reference} / p vs {expand}):", "",
             "| system | " + " | ".join(f"{g} ({sizes.get(g, '?')})" for g in groups) + " |",
             "|---|" + "---|" * len(groups)]
    for system in (*JUDGED, reference):
        if system not in entry["means"]:
            continue
        cells = []
        for g in groups:
            value = entry["groups"].get(g, {}).get(system, float("nan"))
            ps = entry["group_paired"][g]
            vs_ref = "ref" if system == reference else _p(ps.get(f"{system} | {reference}"))
            vs_expand = _p(ps.get(f"{system} | {expand}")) if " @ " in system and system != expand else ""
            cells.append(f"{value:.3f} ({vs_ref}{' / ' + vs_expand if vs_expand else ''})")
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if list(argv[:1]) == ["report"]:  # report [SAVED.json]: the Markdown of a saved run, beside the JSON
        source = Path(argv[1]) if len(argv) > 1 else SAVED
        done = json.loads(source.read_text(encoding="utf-8"))
        SAVED.with_suffix(".md").write_text("\n".join(report(done)) + "\n", encoding="utf-8")
        if source != SAVED:
            SAVED.write_text(json.dumps(done, indent=1), encoding="utf-8")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=Path(".agrag/linbench"))
    parser.add_argument("--only", default=",".join(ORDER), help="benchmarks, comma-separated")
    parser.add_argument("--held-out", action="store_true",
                        help="also score Medical's and SciFact's questions outside the benchmarks' samples (judging only)")
    parser.add_argument("--held-out-only", action="store_true", help="the held-out questions alone")
    parser.add_argument("--stored-runs", type=Path, default=None,
                        help="score Medical's held-out questions from the rankings stored in this runs folder")
    parser.add_argument("--seed", type=Path, action="append", default=[],
                        help="an index whose cached embeddings and extractions the held-out SciFact index may reuse")
    parser.add_argument("--save", type=Path, default=SAVED)
    parser.add_argument("--no-costs", action="store_true",
                        help="time the tri-graph build only (no raw encode, no rule-graph rebuild)")
    parser.add_argument("--costs-only", action="store_true",
                        help="time the builds (raw encode, tri-graph, rule graph) and keep the saved scores")
    args = parser.parse_args(argv)
    from benchmarks.retrieval import benchmarks

    args.root.mkdir(parents=True, exist_ok=True)
    loaders = benchmarks(args.root)
    saved: dict[str, Any] = json.loads(args.save.read_text(encoding="utf-8")) if args.save.exists() else {}
    for name in [n for n in ORDER if n in args.only.split(",")]:
        if not args.held_out_only:
            bench = loaders[name]()
            cost = build(args.root, name, bench, None, costs=not args.no_costs)
            if args.costs_only:
                saved.setdefault(name, {})["cost"] = {**cost.__dict__, "stats": dict(cost.stats)}
                args.save.write_text(json.dumps(saved, indent=1), encoding="utf-8")
                _log(f"{name}: tri-graph {cost.tri_ratio:.2f}x, rule graph {cost.rule_ratio:.2f}x a raw encode")
                continue
            result = evaluate_both(args.root, name, bench, None)
            saved[name] = {**_entry(name, bench, result, cost), "held_out": saved.get(name, {}).get("held_out")}
            args.save.write_text(json.dumps(saved, indent=1), encoding="utf-8")
            print(result.table(), file=sys.stderr)
        if args.held_out and name in HELD_OUT:
            saved.setdefault(name, {})["held_out"] = held_out_entry(args.root, name, args.stored_runs, args.seed)
            args.save.write_text(json.dumps(saved, indent=1), encoding="utf-8")
    return 0


#: The benchmarks with questions kept aside: the dev sample's rule applied again past the sample.
HELD_OUT = ("medical", "scifact")


def held_out_entry(root: Path, name: str, stored: Path | None = None, seed: Sequence[Path] = ()) -> dict[str, Any]:
    """Every system on both graphs over ``name``'s held-out questions (:func:`held_out_medical`,
    :func:`held_out_scifact`), never used to choose anything: the saved entry.

    Medical's held-out questions share its corpus and indexes (``stored``: a ``runs`` folder of an earlier held-out
    run, whose rankings are scored again instead of searching again); SciFact's have their own sub-corpus, ingested
    under ``<root>/scifact-held-out`` (``seed``: indexes whose cached embeddings and extractions it may reuse).
    """
    if name == "medical":
        bench = held_out_medical(root)
        result = stored_result(stored, bench) if stored is not None else evaluate_both(root, name, bench, None)
    else:
        bench = held_out_scifact()
        folder = "scifact-held-out"
        if seed and not (root / folder).exists():
            _log(f"{folder}: {seed_caches(root / folder, seed)} cached embeddings and extractions reused")
        build(root, folder, bench, None, costs=False)
        result = evaluate_both(root, folder, bench, None)
    return _entry(name, bench, result, None)


def held_out_scifact() -> Benchmark:
    """SciFact's claims outside the dev sample: the next :data:`~benchmarks.retrieval.SCIFACT_QUERIES` by the same
    SHA-1 rule (:meth:`~agrag_lab.eval.benchmark.Benchmark.sample`), over their own sub-corpus of
    :data:`~benchmarks.retrieval.SCIFACT_CORPUS` abstracts built by the same rule (every one they cite, then
    distractors by SHA-1)."""
    from agrag_lab.eval import scifact
    from agrag_lab.eval.loaders import scifact_path
    from benchmarks.retrieval import SCIFACT_CORPUS, SCIFACT_QUERIES

    claims = scifact(scifact_path())
    wider = claims.sample(2 * SCIFACT_QUERIES)
    sampled = set(claims.sample(SCIFACT_QUERIES).queries)
    held = wider.subset([q for q in wider.queries if q not in sampled])
    return held.with_corpus(SCIFACT_CORPUS, name=f"scifact-held-out-{SCIFACT_QUERIES}q-{SCIFACT_CORPUS}")


def seed_caches(target: Path, sources: Sequence[Path]) -> int:
    """Create the index ``target`` and copy into its caches the embeddings and extractions the indexes ``sources``
    hold (both keyed by model or extractor and content: a text cached there is not embedded or read again, and
    nothing else of theirs is copied); how many rows were copied."""
    from agrag_lab.graph import Graph

    with Graph.open(target):
        pass
    copied = 0
    with sqlite3.connect(target / "documents.sqlite") as db:
        for n, source in enumerate(sources):
            db.execute(f"ATTACH DATABASE ? AS s{n}", (f"file:{source / 'documents.sqlite'}?mode=ro",))
            for table in ("embeddings", "extractions"):
                copied += db.execute(f"INSERT OR IGNORE INTO {table} SELECT * FROM s{n}.{table}").rowcount
        db.commit()
    return copied


def stored_result(runs: Path, bench: Benchmark) -> EvalResult:
    """``bench`` scored from the rankings a run of :func:`evaluate_both` stored under ``runs`` (its
    ``<benchmark>-rules`` and ``<benchmark>-linear`` folders; each system's newest file), without searching again.

    Raises
    ------
    DatasetError
        A folder is missing, or a stored run lacks some of ``bench``'s questions.
    """
    from agrag_lab.errors import DatasetError
    from agrag_lab.eval.across import system_name
    from agrag_lab.eval.graphrag_bench import coverage_result, is_coverage_benchmark
    from agrag_lab.eval.harness import score_runs
    from agrag_lab.eval.runcache import RunCache
    from agrag_lab.eval.systems import SystemRun

    runs_by_name: dict[str, SystemRun] = {}
    for label in GRAPHS:
        folder = runs / f"{bench.name}-{label}"
        files = sorted(folder.glob("*.json"), key=lambda f: f.stat().st_mtime)
        if not files:
            raise DatasetError(f"no stored runs in {folder}; run `python -m benchmarks.linear_graph --held-out` first")
        for file in files:
            run = RunCache(folder).get(file.stem)
            if run is None:
                continue
            missing = set(bench.judged_queries) - set(run.rankings)
            if missing:
                raise DatasetError(f"{file} lacks {len(missing)} of {bench.name}'s questions; search them again")
            name = run.name if run.kind == "baseline" else system_name(run.name, label)
            runs_by_name[name] = replace(run, name=name)
    metrics = ("recall@2", "recall@5", "recall@10", "ndcg@10", "mrr")
    scored = score_runs(bench, list(runs_by_name.values()), metrics=metrics)
    return coverage_result(scored, bench) if is_coverage_benchmark(bench) else scored


def held_out_medical(root: Path) -> Benchmark:
    """GraphRAG-Bench Medical's questions outside the 75-per-type sample: the next 75 of each type by SHA-1."""
    from agrag_lab.eval.graphrag_bench import PER_TYPE, medical

    wider = medical(per_type=2 * PER_TYPE, cache=root / "embeddings")
    sampled = set(medical(cache=root / "embeddings").queries)
    return wider.subset([q for q in wider.queries if q not in sampled], name="medical-held-out")


def _entry(name: str, bench: Benchmark, result: EvalResult, cost: BuildCost | None) -> dict[str, Any]:
    from agrag_lab.eval.across import system_name

    primary = PRIMARY[name]
    recipes = [r.name for r in systems("linear")]
    pairs = [(system_name(r, "linear"), system_name(r, "rules")) for r in recipes]
    pairs += [(system_name(r, g), system_name(GRAPH_EXPAND.name, "rules")) for r in recipes for g in GRAPHS]
    metrics = [primary, *EXTRA.get(name, ()), *(["ndcg@10"] if primary == "recall@5" else [])]
    return {
        "benchmark": bench.name,
        "questions": len(bench.judged_queries),
        "reference": result.reference,
        "means": {s: {m: result.system(s).mean[m] for m in result.metrics} for s in result.names},
        "ms_per_query": {s: result.system(s).ms_per_query for s in result.names},
        "p_reference": {s: dict(result.p_values.get(s, {})) for s in result.names},
        "paired": {m: paired(result, bench, pairs, m) for m in dict.fromkeys(metrics)},
        "rule": {s: rule(result, s, primary, EXTRA.get(name, ()))[1] for s in result.names if " @ " in s},
        "groups": _groups(result, primary),
        "group_paired": _group_paired(result, bench, primary),
        "group_sizes": _group_sizes(result),
        "cost": None if cost is None else {**cost.__dict__, "stats": dict(cost.stats)},
    }


def _group_paired(result: EvalResult, bench: Benchmark, metric: str) -> dict[str, dict[str, float]]:
    """Per question group, each system's paired p on ``metric`` over that group's questions against the best baseline
    (of all the questions) and against ``GRAPH_EXPAND @ rules``, keyed ``"a | b"`` (empty without groups)."""
    by: dict[str, set[str]] = {}
    for q, group in result.groups.items():
        if group is not None:
            by.setdefault(str(group), set()).add(q)
    expand = f"{GRAPH_EXPAND.name} @ rules"
    pairs = [(s, result.reference) for s in result.names if s != result.reference]
    pairs += [(s, expand) for s in result.names if " @ " in s and s != expand]
    return {group: paired(result, bench, pairs, metric, qs) for group, qs in by.items()}


def _group_sizes(result: EvalResult) -> dict[str, int]:
    """How many judged questions each question group holds."""
    judged = set(result.system(result.reference).per_query[next(iter(result.metrics))])
    out: dict[str, int] = {}
    for q, group in result.groups.items():
        if group is not None and q in judged:
            out[str(group)] = out.get(str(group), 0) + 1
    return out


def _groups(result: EvalResult, metric: str) -> dict[str, dict[str, float]]:
    """Each question group's mean of ``metric`` per system (empty when the benchmark has no groups)."""
    out: dict[str, dict[str, float]] = {}
    for s in result.systems:
        by: dict[str, list[float]] = {}
        for q, v in s.per_query[metric].items():
            if result.groups.get(q) is not None:
                by.setdefault(str(result.groups[q]), []).append(v)
        for group, values in by.items():
            out.setdefault(group, {})[s.name] = sum(values) / len(values)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
