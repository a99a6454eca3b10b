"""Does the offline agent answer? Answer-bearing answers on the workshop and the Christmas Carol import (issue 27).

An answer is *answer-bearing* when it cites a gold passage and states the gold
answer (:func:`benchmarks.agent.answer_present`). The workshop questions
come with the workshop corpus; the Christmas Carol questions are "who ..."
questions over the imported GraphRAG output (``../shared`` or the bundled
copy), their gold passage the text unit that states the answer.

Run it twice to compare code versions (``PYTHONPATH`` a checkout of the
version before)::

    .venv/bin/python -m benchmarks.agent_answers --workshop .agrag/workshop --carol .agrag/carol

Either index is built when its folder does not exist. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

#: Christmas Carol "who" questions: (id, question, answer, a sentence of the gold text unit).
CAROL_QUESTIONS: tuple[tuple[str, str, str, str], ...] = (
    ("cc01", "Who is Bob Cratchit's employer?", "Scrooge",
     "The door of Scrooge's counting-house was open, that he might keep his eye upon his clerk"),
    ("cc02", "Who leads the firm of Scrooge and Marley now that Marley is dead?", "Scrooge",
     "Scrooge never painted out Old Marley's name."),
    ("cc03", "Who was Scrooge's employer when he was an apprentice?", "Fezziwig",
     "Why, it's old Fezziwig! Bless his heart, it's Fezziwig alive again!"),
    ("cc04", "Who is the father of Tiny Tim?", "Bob Cratchit",
     "Alas for Tiny Tim, he bore a little crutch, and had his limbs supported by an iron frame!"),
    ("cc05", "Who is Scrooge's nephew?", "Fred",
     "It was the voice of Scrooge's nephew, who came upon him so quickly that this was the first intimation he had of his approach."),
    ("cc06", "Who was Scrooge's business partner?", "Marley",
     "Scrooge and he were partners for I don't know how many years."),
)


def _carol_dataset(graph: Any) -> Any:
    """The questions as a Dataset whose gold passages are the text units that hold each gold sentence."""
    from agrag_lab.datasets import Dataset

    queries: dict[str, str] = {}
    extra: dict[str, dict[str, Any]] = {}
    session = graph.evidence()
    for qid, question, answer, sentence in CAROL_QUESTIONS:
        hits = session.discover(sentence, mode="keyword", limit=3).hits
        texts = session.fetch([h.id for h in hits]).texts
        gold = [{"document_id": t.id.split("@", 1)[0], "passage": sentence} for t in texts
                if " ".join(sentence.split()) in " ".join(t.text.split())][:1]
        queries[qid] = question
        extra[qid] = {"gold": gold or [{"document_id": "", "passage": sentence}], "answer": answer, "hops": 1}
    return Dataset("christmas-carol", (), queries, {}, (), extra)


def _present(answer: str, gold: str | None) -> bool:
    """:func:`benchmarks.agent.answer_present`, restated so that a version without it is measured alike."""
    import re

    from agrag_lab.agent.text import terms

    if not gold:
        return False
    wanted = set(terms(re.split(r"[,;(]", gold, maxsplit=1)[0]))
    return bool(wanted) and wanted <= set(terms(answer))


def _index(path: Path, build: Any) -> Any:
    from agrag_lab import Graph

    if not path.exists():
        with Graph.open(path) as graph:
            build(graph)
    return Graph.open(path, read_only=True)


def main(argv: list[str] | None = None) -> int:
    from agrag_lab.datasets import workshop
    from benchmarks.agent import bench

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workshop", type=Path, required=True, help="the workshop index (built if absent)")
    p.add_argument("--carol", type=Path, required=True, help="the imported Christmas Carol index (built if absent)")
    p.add_argument("--carol-source", type=Path, default=Path("../shared/datasets/msgraphrag_christmas_carol/v3"),
                   help="the GraphRAG output to import (default: the shared 3.x output)")
    args = p.parse_args(argv)
    ds = workshop()

    def build_workshop(graph: Any) -> None:
        graph.ingest(ds.documents)
        graph.ingest(ds.revisions)

    out: dict[str, Any] = {}
    with _index(args.workshop, build_workshop) as graph:
        out["workshop"] = bench(graph, dataset=ds, details=True)
    with _index(args.carol, lambda g: g.import_graphrag(args.carol_source)) as graph:
        out["christmas-carol"] = bench(graph, dataset=_carol_dataset(graph), details=True)
    for name, report in out.items():  # answer-bearing, also for a version whose bench does not measure it
        answers = {qid: extra.get("answer") for qid, extra in (workshop().extra if name == "workshop" else {
            q[0]: {"answer": q[2]} for q in CAROL_QUESTIONS}).items()}
        rows = report["per_question"]
        for row in rows:
            row["answer_present"] = _present(row["answer"], answers.get(row["id"]))
            row["answer_bearing"] = bool(row["gold_passage"]) and row["answer_present"]
        report["answer_bearing"] = round(sum(r["answer_bearing"] for r in rows) / max(1, len(rows)), 4)
        report["answer_present"] = round(sum(r["answer_present"] for r in rows) / max(1, len(rows)), 4)
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, default=str)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
