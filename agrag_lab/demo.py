"""``agrag-lab demo`` (``make demo``): the main job, end to end.

1. Ingest the workshop corpus (and its revision) into ``<index_root>/workshop``
   and MuSiQue into ``<index_root>/musique``. Ingest is idempotent: when the
   indexes are already there, nothing is embedded again.
2. Run the built-in recipes side by side on three workshop questions and
   explain each recipe's top hit (``run.explain(0)``).
3. Evaluate every recipe and the three baselines on MuSiQue and print the table.
4. Write ``reports/demo.html``: rank contributions, rank shifts between
   recipes, and the evaluation charts (plus the evaluation's CSV and JSON in
   ``reports/eval``).

Progress goes to stderr, results to stdout.

Examples
--------
>>> print(side_by_side({"A": ["x", "y"], "B": ["z"]}, width=6))
#   A     B
1   x     z
2   y
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.eval.report import Block
    from agrag_lab.graph import Graph
    from agrag_lab.recipes import Recipe
    from agrag_lab.retrieval.engine import SearchEngine
    from agrag_lab.retrieval.run import SearchRun

#: The workshop questions the demo compares recipes on.
DEMO_QUESTIONS = (
    "Who worked with Babbage?",
    "Who was the mother of the author of Note G?",
    "What were the main themes of the Analytical Engine's design?",
)
#: Results shown per recipe in the side-by-side table.
SHOWN = 5
COLUMN = 25


class _Clock:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    def log(self, message: str) -> None:
        print(f"[{time.perf_counter() - self.start:6.1f} s] {message}", file=sys.stderr, flush=True)


def side_by_side(columns: Mapping[str, Sequence[str]], *, width: int = COLUMN) -> str:
    """Columns of ranked labels next to each other, one row per rank."""
    names = list(columns)
    depth = max((len(v) for v in columns.values()), default=0)

    def cell(text: str) -> str:
        text = text if len(text) < width else text[: width - 2] + "…"
        return f"{text:<{width}}"

    lines = ["#   " + "".join(cell(n) for n in names)]
    for i in range(depth):
        lines.append(f"{i + 1:<4}" + "".join(cell(columns[n][i] if i < len(columns[n]) else "") for n in names))
    return "\n".join(line.rstrip() for line in lines)


#: One-letter marks of the item kinds in the side-by-side table.
KIND_MARK = {"entity": "E", "chunk": "C", "community": "R"}


def _label(kind: str, title: str) -> str:
    return f"[{KIND_MARK.get(kind, '?')}] {title}"


def compare_recipes(engine: SearchEngine, recipes: Sequence[Recipe], question: str) -> dict[str, SearchRun]:
    """Run every recipe on ``question``; a recipe that fails is left out with a message."""
    from agrag_lab.errors import AgragError

    runs: dict[str, SearchRun] = {}
    for recipe in recipes:
        try:
            runs[recipe.name] = engine.run(question, recipe)
        except AgragError as exc:
            print(f"  {recipe.name}: failed ({exc})", file=sys.stderr)
    return runs


def print_comparison(question: str, runs: Mapping[str, SearchRun]) -> None:
    """The side-by-side table and each recipe's top-hit explanation, to stdout."""
    print(f"\n=== {question!r}")
    columns = {name: [_label(r.kind, r.title) for r in run.results[:SHOWN]] for name, run in runs.items()}
    print(side_by_side(columns))
    print("    [E] entity, [C] chunk (passage), [R] community report")
    for name, run in runs.items():
        print(f"\n  {name}, top hit:")
        print("\n".join("    " + line for line in run.explain(0).splitlines()) if run.results else "    (no results)")


def workshop_blocks(runs_by_question: Mapping[str, Mapping[str, SearchRun]]) -> list[Block]:
    """Report blocks: rank contributions and rank shifts for each demo question."""
    from agrag_lab.charts import rank_contributions, rank_shift

    blocks: list[Block] = []
    for question, runs in runs_by_question.items():
        if "HYBRID" in runs:
            blocks.append((f"Why HYBRID ranked what it did: {question}", rank_contributions(runs["HYBRID"])))
        if "CHUNK" in runs and "HYBRID" in runs:
            blocks.append((f"CHUNK → HYBRID: {question}", rank_shift(runs["CHUNK"], runs["HYBRID"])))
        if "HYBRID" in runs and "GRAPH_EXPAND" in runs:
            blocks.append((f"HYBRID → GRAPH_EXPAND: {question}", rank_shift(runs["HYBRID"], runs["GRAPH_EXPAND"])))
    return blocks


def _open(path: Path, embedder: Embedder) -> Graph:
    from agrag_lab.graph import Graph

    return Graph.open(path, embedder=embedder, read_only=True)


def main(args: argparse.Namespace) -> int:
    """Run the demo; ``args.index_root`` and ``args.report`` say where. Returns 0."""
    from agrag_lab.embedding import SentenceTransformerEmbedder
    from agrag_lab.eval import bundled
    from agrag_lab.eval.harness import evaluate, resolve_recipes
    from agrag_lab.eval.indexing import ensure_index
    from agrag_lab.eval.report import render_html, report_blocks, write_report
    from agrag_lab.eval.systems import QueryCache
    from agrag_lab.progress import tqdm_progress

    clock = _Clock()
    root, report = Path(args.index_root), Path(args.report)
    embedder = SentenceTransformerEmbedder()
    workshop, musique = bundled.workshop(), bundled.musique()

    clock.log(f"1/4 indexes: {root / 'workshop'} and {root / 'musique'} (cached after the first run)")
    for name, bench in (("workshop", workshop), ("musique", musique)):
        for ingest in ensure_index(root / name, bench, embedder=embedder, always=True, progress=tqdm_progress):
            clock.log(f"  {name}: {ingest}")

    clock.log("2/4 recipes side by side on three workshop questions")
    recipes, skipped = resolve_recipes(None)
    print("Recipes side by side on the workshop corpus")
    for name, why in skipped.items():
        print(f"  note: {name} is skipped: {why}")
    runs_by_question: dict[str, dict[str, SearchRun]] = {}
    with _open(root / "workshop", embedder) as graph:
        # each question is embedded once, not once per recipe
        engine = graph.engine(embedder=QueryCache(embedder))
        for question in DEMO_QUESTIONS:
            runs_by_question[question] = compare_recipes(engine, recipes, question)
            print_comparison(question, runs_by_question[question])

    clock.log("3/4 MuSiQue evaluation: every recipe and three baselines, 100 questions")
    with _open(root / "musique", embedder) as graph:
        result = evaluate(graph, musique, progress=lambda m: clock.log("  " + m))
    print("\n" + result.table())
    print("\n" + result.group_table())

    clock.log(f"4/4 report: {report}")
    paths = write_report(result, report.parent / "eval")
    blocks = workshop_blocks(runs_by_question) + report_blocks(result)
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(
        render_html(
            "agrag_lab demo: recipes compared, and evaluated on MuSiQue",
            blocks,
            intro="Workshop questions first (rank contributions and rank shifts), then the MuSiQue-100 "
            "evaluation of every recipe against the bm25, dense and bm25+dense baselines.",
        ),
        encoding="utf-8",
    )
    print(f"\nreport: {report}")
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    clock.log("done")
    return 0
