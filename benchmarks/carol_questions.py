"""Recipes on an LLM-built graph (issue 25): the judged Christmas Carol questions over the imported GraphRAG 3.x output.

``python -m benchmarks.carol_questions [--root DIR]`` imports
``datasets/msgraphrag_christmas_carol/v3`` into fresh folders, once per
variant of what the graph's records embed, and scores ENTITY, CHUNK, HYBRID,
GRAPH_EXPAND and GRAPH_HYBRID on ``questions.jsonl`` (each question with the
text units that answer it; how they were chosen: BENCHMARKS.md, "Imported graphs: the Christmas Carol questions"):

- ``entity + relation descriptions`` (the import's own since issue 26): an
  entity embeds GraphRAG's ``title:description``, a report its own title,
  summary and findings, and each relationship GraphRAG described gets a
  relation record per end (source, target, description: ``relation_text``, as
  LightRAG's relations; ``agrag_lab/index/records.py``), which LIGHTRAG_* and
  HIPPORAG2 read and through which an entity can be found (it then stands
  first for that relationship's text units);
- ``entity descriptions``: the same without relation records (the import of
  issue 25; GraphRAG 3.x itself embeds no relationship text);
- ``name + description``: an entity embeds LightRAG's form (name, newline,
  description), no relationship records;
- ``chunk mean``: every entity and report vector is the mean of its text
  units' vectors (the import before issue 25), made by removing the marks the
  importer sets (``described_by``, a report's ``full_content``).

The unit is the text unit (one document holds all 42): a result list is
projected onto chunks as ``agrag_lab/eval/projection.py`` projects it onto
documents (an entity or report stands for its supporting passages at its
position, in the order the run ranked them for the question:
``agrag_lab/retrieval/steps/passages.py``; each chunk counts once), and Recall@5
is the share of a question's text units among the first five. A second
projection, ``interleaved`` (each hit's first passage before any hit's second),
is measured beside it. Build time is the whole import (read once, outside it);
``texts`` the distinct texts it embeds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import cast

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.importing.graphrag import read_graphrag
from agrag_lab.importing.model import ImportedIndex
from agrag_lab.importing.writer import write_import
from agrag_lab.index.records import DESCRIBED_BY, described_by
from agrag_lab.kg.model import Attributes, KnowledgeGraph

CAROL = Path(__file__).resolve().parents[1] / "datasets" / "msgraphrag_christmas_carol"
RECIPES = ("CHUNK", "ENTITY", "HYBRID", "GRAPH_EXPAND", "GRAPH_HYBRID")
K = 5


def questions() -> list[dict[str, object]]:
    """The judged questions (``id``, ``question``, ``text_units``: GraphRAG text unit ids)."""
    lines = (CAROL / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _unmarked(attributes: Attributes) -> Attributes:
    return tuple((k, v) for k, v in attributes if k != DESCRIBED_BY)


def variant(imported: ImportedIndex, *, entities: str, relations: bool, reports: bool) -> ImportedIndex:
    """The same import embedding other texts: ``entities`` the builder form of entity records (``""``: the
    chunks' mean), ``relations`` whether GraphRAG's described relationships get records (marked as a builder's
    description, as LightRAG's relations are), ``reports`` whether reports embed their own text (else their
    chunks' mean)."""
    graph = imported.store.graph
    nodes = [
        replace(e, attributes=_unmarked(e.attributes) + (((DESCRIBED_BY, entities),) if entities else ()))
        if described_by(e.attributes) else e
        for e in graph.entities.values()
    ]
    edges = [
        replace(e, attributes=_unmarked(e.attributes) + (((DESCRIBED_BY, "graphrag"),) if relations and e.description else ()))
        for e in graph.edges
    ]
    kept = imported.store.reports() if reports else [replace(r, full_content="") for r in imported.store.reports()]
    plain = KnowledgeGraph.create(
        nodes, edges, (), (), graph.mentions, graph.chunk_documents, graph.chunk_documents, graph.schema
    )
    return replace(imported, store=NetworkXGraphStore(plain, imported.store.communities(), kept))


#: name -> (entity record form, relationship records, report text); ``entity + relation descriptions`` is the
#: import's own.
VARIANTS = {
    "entity + relation descriptions": ("graphrag", True, True),
    "entity descriptions": ("graphrag", False, True),
    "name + description": ("lightrag", False, True),
    "chunk mean": ("", False, False),
}


def passages(run: object) -> list[str]:
    """A run's results as chunk ids, best first (an entity or report: all its supporting chunks at its
    position, as ``agrag_lab/eval/projection.py`` projects them), each once."""
    seen: list[str] = []
    for result in run.results:  # type: ignore[attr-defined]
        for chunk in result.passages():
            if chunk not in seen:
                seen.append(chunk)
    return seen


def interleaved(run: object) -> list[str]:
    """A run's results as chunk ids, each hit's first passage before any hit's second (round by round, in
    rank order; a chunk is a hit of one passage), each once."""
    streams = [list(result.passages()) for result in run.results]  # type: ignore[attr-defined]
    seen: list[str] = []
    for depth in range(max((len(s) for s in streams), default=0)):
        for stream in streams:
            if depth < len(stream) and stream[depth] not in seen:
                seen.append(stream[depth])
    return seen


#: How a result list becomes passages: name -> function.
PROJECTIONS = {"hit order": passages, "interleaved": interleaved}


def measure(
    root: Path, embedder: SentenceTransformerEmbedder, *, reuse: bool = False, only: tuple[str, ...] = (),
    names: tuple[str, ...] = RECIPES,
) -> dict[str, dict[str, float]]:
    """``{variant: {"build_seconds": s, "texts": n, recipe: Recall@5}}`` (``reuse``: score imports already under
    ``root``; their build time is then not measured, NaN; ``only``: these variants; ``names``: these recipes)."""
    from agrag_lab.importing.writer import builder_aliases, embedded_texts

    base = read_graphrag(CAROL / "v3")
    qs = questions()
    out: dict[str, dict[str, float]] = {}
    for name, (entities, relations, reports) in VARIANTS.items():
        if only and name not in only:
            continue
        imported = variant(base, entities=entities, relations=relations, reports=reports)
        folder = root / name.replace(" ", "-").replace("+", "and")
        scores: dict[str, float] = {"texts": float(len(embedded_texts(imported)))}
        if reuse and (folder / "documents.sqlite").exists():
            scores["build_seconds"] = float("nan")
        else:
            shutil.rmtree(folder, ignore_errors=True)
            started = time.perf_counter()
            with Graph.open(folder, embedder=embedder) as graph:
                write_import(graph, imported)
            scores["build_seconds"] = time.perf_counter() - started
        with Graph.open(folder, embedder=embedder, read_only=True) as graph:
            aliases = builder_aliases(graph)
            engine = graph.engine()
            for recipe in names:
                totals = dict.fromkeys(PROJECTIONS, 0.0)
                for q in qs:
                    gold = {aliases.resolve_as(u, "source") for u in cast(list[str], q["text_units"])}
                    run = engine.run(str(q["question"]), recipes.get(recipe))
                    for projection, project in PROJECTIONS.items():
                        totals[projection] += len(gold & set(project(run)[:K])) / len(gold)
                for projection, total in totals.items():
                    scores[f"{recipe} {projection}"] = total / len(qs)
        out[name] = scores
        print(name, json.dumps(scores), flush=True)
    return out


def table(results: dict[str, dict[str, float]], names: tuple[str, ...] = RECIPES) -> list[str]:
    lines = [
        "| variant | texts embedded | build (import) s | projection | " + " | ".join(f"{r} R@5" for r in names) + " |",
        "|---|---|---|---|" + "---|" * len(names),
    ]
    for variant, scores in results.items():
        for projection in PROJECTIONS:
            lines.append(f"| {variant} | {scores['texts']:.0f} | {scores['build_seconds']:.1f} | {projection} | "
                         + " | ".join(f"{scores[f'{r} {projection}']:.3f}" for r in names) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None, help="where the two imports are written (a temporary folder)")
    parser.add_argument("--reuse", action="store_true", help="score the imports already under --root (no build time)")
    parser.add_argument("--only", nargs="*", default=(), help="these variants only (names as in VARIANTS)")
    parser.add_argument("--recipes", default=",".join(RECIPES),
                        help="comma-separated recipe names, built-in or peer (PEERS: every peer recipe)")
    args = parser.parse_args()
    names = tuple(n.strip() for n in args.recipes.split(",") if n.strip())
    if "PEERS" in names:
        names = tuple(n for n in names if n != "PEERS") + tuple(recipes.peers())
    root = args.root or Path(tempfile.mkdtemp(prefix="carol-questions-"))
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])  # the model loads outside the first build
    results = measure(root, embedder, reuse=args.reuse, only=tuple(args.only), names=names)
    print(json.dumps(results, indent=2))
    print("\n".join(table(results, names)))


if __name__ == "__main__":
    main()
