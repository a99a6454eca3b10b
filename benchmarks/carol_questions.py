"""Recipes on an LLM-built graph (issue 25): the judged Christmas Carol questions over the imported GraphRAG 3.x output.

``python -m benchmarks.carol_questions [--root DIR]`` imports
``datasets/msgraphrag_christmas_carol/v3`` twice into fresh folders, once per
variant of what the graph's records embed, and scores ENTITY, CHUNK, HYBRID,
GRAPH_EXPAND and GRAPH_HYBRID on ``questions.jsonl`` (each question with the
text units that answer it; how they were chosen: ``benchmarks/NOTES.md``):

- ``builder text`` (kept): an entity embeds GraphRAG's ``title:description``, a
  report its own title, summary and findings (``agrag_lab/index/records.py``);
- ``chunk mean``: every entity and report vector is the mean of its text
  units' vectors (the import before issue 25), made by removing the marks the
  importer sets (``described_by``, a report's ``full_content``).

The unit is the text unit (one document holds all 42): a result list is
projected onto chunks as ``agrag_lab/eval/projection.py`` projects it onto
documents (an entity or report stands for its supporting passages at its
position, in the order the run ranked them for the question:
``agrag_lab/retrieval/steps/passages.py``; each chunk counts once), and Recall@5
is the share of a question's text units among the first five. Build time is the
whole import.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing.graphrag import read_graphrag
from agrag_lab.importing.model import ImportedIndex
from agrag_lab.importing.writer import write_import
from agrag_lab.index.records import DESCRIBED_BY
from agrag_lab.kg.model import KnowledgeGraph
from agrag_lab.kg.store import NetworkXGraphStore

CAROL = Path(__file__).resolve().parents[1] / "datasets" / "msgraphrag_christmas_carol"
RECIPES = ("CHUNK", "ENTITY", "HYBRID", "GRAPH_EXPAND", "GRAPH_HYBRID")
K = 5


def questions() -> list[dict[str, object]]:
    """The judged questions (``id``, ``question``, ``text_units``: GraphRAG text unit ids)."""
    lines = (CAROL / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def chunk_mean(imported: ImportedIndex) -> ImportedIndex:
    """The same import with every record's vector the mean of its chunks' (the marks of builder text removed)."""
    graph = imported.store.graph
    entities = [
        replace(e, attributes=tuple((k, v) for k, v in e.attributes if k != DESCRIBED_BY)) for e in graph.entities.values()
    ]
    reports = [replace(r, full_content="") for r in imported.store.reports()]
    plain = KnowledgeGraph.create(
        entities, graph.edges, (), (), graph.mentions, graph.chunk_documents, graph.chunk_documents, graph.schema
    )
    return replace(imported, store=NetworkXGraphStore(plain, imported.store.communities(), reports))


def passages(run: object) -> list[str]:
    """A run's results as chunk ids, best first (an entity or report: its supporting chunks), each once."""
    seen: list[str] = []
    for result in run.results:  # type: ignore[attr-defined]
        for chunk in ((result.id,) if result.kind == "chunk" else result.passages()):
            if chunk not in seen:
                seen.append(chunk)
    return seen


def measure(root: Path, embedder: SentenceTransformerEmbedder, *, reuse: bool = False) -> dict[str, dict[str, float]]:
    """``{variant: {"build_seconds": s, recipe: Recall@5}}`` (``reuse``: score imports already under ``root``;
    their build time is then not measured, NaN)."""
    base = read_graphrag(CAROL / "v3")
    qs = questions()
    out: dict[str, dict[str, float]] = {}
    for variant, imported in (("builder text", base), ("chunk mean", chunk_mean(base))):
        folder = root / variant.replace(" ", "-")
        if reuse and (folder / "documents.sqlite").exists():
            scores: dict[str, float] = {"build_seconds": float("nan")}
        else:
            shutil.rmtree(folder, ignore_errors=True)
            started = time.perf_counter()
            with Graph.open(folder, embedder=embedder) as graph:
                write_import(graph, imported)
            scores = {"build_seconds": time.perf_counter() - started}
        with Graph.open(folder, embedder=embedder, read_only=True) as graph:
            from agrag_lab.importing.writer import builder_aliases

            aliases = builder_aliases(graph)
            engine = graph.engine()
            for name in RECIPES:
                total = 0.0
                for q in qs:
                    gold = {aliases.resolve_as(u, "source") for u in q["text_units"]}  # type: ignore[union-attr]
                    top = passages(engine.run(str(q["question"]), recipes.get(name)))[:K]
                    total += len(gold & set(top)) / len(gold)
                scores[name] = total / len(qs)
        out[variant] = scores
    return out


def table(results: dict[str, dict[str, float]]) -> list[str]:
    lines = [
        "| variant | build (import) s | " + " | ".join(f"{r} R@5" for r in RECIPES) + " |",
        "|---|---|" + "---|" * len(RECIPES),
    ]
    for variant, scores in results.items():
        lines.append(f"| {variant} | {scores['build_seconds']:.1f} | " + " | ".join(f"{scores[r]:.3f}" for r in RECIPES) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None, help="where the two imports are written (a temporary folder)")
    parser.add_argument("--reuse", action="store_true", help="score the imports already under --root (no build time)")
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="carol-questions-"))
    results = measure(root, SentenceTransformerEmbedder(), reuse=args.reuse)
    print(json.dumps(results, indent=2))
    print("\n".join(table(results)))


if __name__ == "__main__":
    main()
