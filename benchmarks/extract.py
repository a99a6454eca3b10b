"""Graph quality of the rule extractor (issue 15): silver, gold, junk hits, retrieval before/after.

BEFORE is the library at commit :data:`BEFORE_COMMIT` (the rule extractor before
issue 15); its figures are kept in ``benchmarks/extract_before.json`` because
that commit never changes. ``python -m benchmarks.extract before`` makes them
again on any checkout with git history: it exports that commit with
``git archive`` into a temporary folder, puts this module beside it, and runs
:func:`measure_retrieval` there (fresh ingests of MuSiQue-100 and the workshop
corpus, every recipe and baseline evaluated, the top-10 ENTITY hits of the 20
workshop questions kept). The BEFORE silver and gold scores in that file were
measured once, by scoring that commit's extractor with :mod:`agrag_lab.kg.extract.quality`.

AFTER is the current code, measured in the same ``make bench``
(:func:`bench`: the MuSiQue and workshop indexes the bench has just built)
or by hand::

    python -m benchmarks.extract measure --root /tmp/after-idx --out /tmp/after.json
    python -m benchmarks.extract section --after /tmp/after.json   # the BENCHMARKS.md lines
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agrag_lab import Graph

if TYPE_CHECKING:
    from agrag_lab.kg.extract import quality

REPO = Path(__file__).resolve().parents[1]
#: The last commit before the extractor changes of issue 15.
BEFORE_COMMIT = "0844421"
#: The BEFORE figures (made by ``python -m benchmarks.extract before``).
BEFORE_FILE = Path(__file__).with_name("extract_before.json")
TOP_ENTITY_HITS = 10
#: The question whose top-20 ENTITY hits the browser test checks (the FusionInspector of notebook 04).
BABBAGE = "Who worked with Babbage?"
#: The hand-written gold entities of the workshop corpus.
GOLD_FILE = Path(__file__).resolve().parents[1] / "tests" / "kg" / "workshop_gold_entities.toml"


def workshop_gold_score() -> Any:
    """Gold-list precision and recall of the default extractor on the workshop corpus."""
    from agrag_lab.datasets import workshop
    from agrag_lab.kg.extract import quality

    ws = workshop()
    gold = quality.GoldList.load(GOLD_FILE)
    return quality.gold_score(gold, ws.current_documents(), superseded=ws.superseded_documents())


def measure_retrieval(
    root: Path,
    *,
    musique_questions: int | None = None,
    reuse: Path | None = None,
    corpora: tuple[str, ...] = ("workshop", "musique"),
) -> dict[str, Any]:
    """Ingest both corpora under ``root`` (fresh), evaluate every system, return the figures.

    With ``reuse`` (the root of an earlier run), its two indexes are copied and
    their derived stores rebuilt by this code (:meth:`Graph.sync`): the same
    chunks and chunk embeddings, the knowledge graph extracted anew. That is
    how the AFTER run differs from the BEFORE run by the extractor alone.
    """
    from agrag_lab.datasets import workshop
    from agrag_lab.embedding import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    out: dict[str, Any] = {"measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": _commit()}
    for name in corpora:
        path = root / name
        if path.exists():
            shutil.rmtree(path)
    if reuse is not None:
        for name in corpora:
            shutil.copytree(reuse / name, root / name, ignore=shutil.ignore_patterns("write.lock"))
    ws = workshop()
    if "workshop" in corpora:
        out.update(_workshop_figures(root, embedder, ws, reuse is not None))
    if "musique" in corpora:
        out.update(_musique_figures(root, embedder, musique_questions, reuse is not None))
    return out


def _workshop_figures(root: Path, embedder: Any, ws: Any, rebuild: bool) -> dict[str, Any]:
    with Graph.open(root / "workshop", embedder=embedder) as work:
        if not rebuild:
            work.ingest(ws.documents)
            work.ingest(ws.revisions)
        else:
            work.sync()
        return workshop_run(work)


def workshop_run(work: Graph) -> dict[str, Any]:
    """Graph size, the top-10 ENTITY hits of the 20 questions and every system's Recall@5, on ``work``."""
    from agrag_lab.datasets import workshop
    from agrag_lab.eval import evaluate
    from agrag_lab.eval import workshop as workshop_benchmark
    from agrag_lab.recipes import ENTITY

    ws = workshop()
    store = work.graph_store
    engine = work.engine()
    return {
        "workshop_graph": {"entities": len(store.entities()), "relations": len(store.graph.edges)},
        "entity_hits": {
            qid: [r.title for r in engine.run(q, ENTITY).results[:TOP_ENTITY_HITS]] for qid, q in ws.queries.items()
        },
        "babbage_top20": [r.title for r in engine.run(BABBAGE, ENTITY.replace(limit=20)).results],
        "workshop": _recall(evaluate(work, workshop_benchmark())),
    }


def _musique_figures(root: Path, embedder: Any, questions: int | None, rebuild: bool) -> dict[str, Any]:
    from agrag_lab.eval import musique as musique_benchmark

    bench = musique_benchmark(questions=questions) if questions else musique_benchmark()
    with Graph.open(root / "musique", embedder=embedder) as graph:
        started = time.perf_counter()
        if not rebuild:
            graph.ingest(bench.documents)
        else:
            graph.sync()
        seconds = round(time.perf_counter() - started, 1)
        return {"musique_ingest_s" if not rebuild else "musique_sync_s": seconds, **musique_run(graph, questions)}


def musique_run(graph: Graph, questions: int | None = None) -> dict[str, Any]:
    """Graph size and every system's Recall@5 on a MuSiQue index."""
    from agrag_lab.eval import evaluate
    from agrag_lab.eval import musique as musique_benchmark

    bench = musique_benchmark(questions=questions) if questions else musique_benchmark()
    store = graph.graph_store
    return {
        "musique_graph": {"entities": len(store.entities()), "relations": len(store.graph.edges)},
        "musique": _recall(evaluate(graph, bench)),
    }


def _recall(result: Any) -> dict[str, float]:
    return {s.name: round(float(s.mean["recall@5"]), 4) for s in result.systems}


def _retrieval_table(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    lines = ["| system | workshop R@5 before | after | MuSiQue-100 R@5 before | after |", "|---|---|---|---|---|"]
    names = list(dict.fromkeys([*before.get("workshop", {}), *after.get("workshop", {})]))
    for name in names:
        cells = []
        for corpus in ("workshop", "musique"):
            b, a = before.get(corpus, {}).get(name), after.get(corpus, {}).get(name)
            cells += [f"{b:.3f}" if b is not None else "", _delta(a, b)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """One line per corpus: the systems whose Recall@5 fell and rose from BEFORE to AFTER (nothing hidden)."""
    lines = []
    for corpus, label in (("workshop", "Workshop"), ("musique", "MuSiQue-100")):
        b, a = before.get(corpus, {}), after.get(corpus, {})
        moved = [(name, a[name] - b[name]) for name in a if name in b and abs(a[name] - b[name]) >= 0.0005]
        if not b or not a:
            continue
        lost = [f"{n} {d:+.3f}" for n, d in moved if d < 0]
        won = [f"{n} {d:+.3f}" for n, d in moved if d > 0]
        lines.append(f"{label}: Recall@5 lower AFTER for {', '.join(lost) or 'no system'}; "
                     f"higher for {', '.join(won) or 'no system'}; the others unchanged.")
    return lines


def _delta(after: float | None, before: float | None) -> str:
    if after is None:
        return ""
    if before is None:
        return f"{after:.3f}"
    return f"{after:.3f} ({after - before:+.3f})"


def _junk_table(run: Mapping[str, Any], gold: quality.GoldList, questions: Mapping[str, str]) -> list[str]:
    lines = ["| q | question | top-10 ENTITY hits (~~struck~~: not in the gold list) |", "|---|---|---|"]
    for qid, hits in run.get("entity_hits", {}).items():
        shown = [h if gold.contains(h) else f"~~{h}~~" for h in hits]
        lines.append(f"| {qid} | {questions.get(qid, '')} | " + ", ".join(shown) + " |")
    return lines


def junk_hits(run: Mapping[str, Any], gold: quality.GoldList) -> list[str]:
    """The distinct ENTITY hits of a saved run that the gold list does not hold."""
    return sorted({h for hits in run.get("entity_hits", {}).values() for h in hits if not gold.contains(h)})


def _score_dict(score: Any) -> dict[str, Any]:
    import dataclasses

    data: dict[str, Any] = dataclasses.asdict(score)
    return data


def _quality_table(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    """Precision/recall per type, BEFORE and AFTER side by side (from :func:`_score_dict` values)."""
    lines = [
        "| type | reference | extracted before / after | precision before / after | recall before / after |",
        "|---|---|---|---|---|",
    ]
    old_rows = {r["type"]: r for r in [before["overall"], *before["by_type"]]} if before else {}
    for row in [after["overall"], *after["by_type"]]:
        b = old_rows.get(row["type"])
        name = "**all**" if row["type"] == "all" else row["type"]

        def pair(key: str, fmt: str = ".3f", b: Any = b, row: Any = row) -> str:
            return (f"{b[key]:{fmt}} / " if b else "") + f"**{row[key]:{fmt}}**"

        lines.append(f"| {name} | {row['reference']} | {pair('extracted', 'd')} | {pair('precision')} | {pair('recall')} |")
    dup_before = f"{len(before['duplicates'])} / " if before else ""
    lines += ["", f"Reference entities split over two or more extracted entities (duplicates): {dup_before}"
              f"{len(after['duplicates'])}."]
    return lines


def section(
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    before_quality: Mapping[str, Any] | None = None,
    per_question: bool = False,
) -> list[str]:
    """The BENCHMARKS.md lines of this section.

    Silver and gold scores are computed now (AFTER) and read from ``before_quality``
    (the BEFORE extractor scored by the same code); retrieval figures come from saved runs.
    ``per_question`` adds each workshop question's top-10 ENTITY hits (``python -m benchmarks.extract section``
    prints them; BENCHMARKS.md keeps the count of hits outside the gold list).
    """
    from agrag_lab.datasets import workshop
    from agrag_lab.kg.extract import quality

    gold = quality.GoldList.load(GOLD_FILE)
    silver = _score_dict(quality.silver_score())
    gold_score = workshop_gold_score()
    bq = before_quality or {}
    lines = [
        "Silver standard: our rule extractor over the 42 text units of the real GraphRAG index of "
        "*A Christmas Carol* (`shared/datasets/msgraphrag_christmas_carol/v3`, GraphRAG's `title:` line "
        f"stripped), scored against the {silver['reference_count']} entities its LLM extracted (GraphRAG's types "
        "PERSON, ORGANIZATION, GEO, EVENT against our Person, Organization, Place, Event). "
        f"Names match by {quality.MATCHING}; an entity matches by its name or any alias.",
        "",
        *_quality_table(bq.get("silver"), silver),
        "",
        "The silver recall stays low by design: GraphRAG's LLM also extracts common nouns and events "
        "(CHRISTMAS, NIGHT, CHURCH) that a capitalisation-based extractor never proposes.",
        "",
        f"Gold list: `tests/kg/workshop_gold_entities.toml` ({len(gold.entities)} entities a reader of the "
        "workshop corpus expects, written by hand, with their labels and the other names the corpus uses), "
        "against the current entities of the rule graph of the workshop corpus (documents and revision). "
        "Targets: precision >= 0.9 at recall >= 0.85.",
        "",
        *_quality_table(bq.get("gold"), _score_dict(gold_score)),
    ]
    if bq.get("gold"):
        lines += ["", "Extracted BEFORE, not in the gold list: " + ", ".join(bq["gold"]["false_positives"])]
    lines += ["", "Extracted AFTER, not in the gold list: " + (", ".join(gold_score.false_positives) or "none")]
    lines += ["", "In the gold list, not extracted AFTER: " + (", ".join(gold_score.false_negatives) or "none")]
    if before is not None or after is not None:
        before, after = before or {}, after or {}
        lines += [
            "",
            f"Recall@5 of every system, BEFORE (the library at commit {before.get('commit', BEFORE_COMMIT)}, "
            f"measured {before.get('measured', '?')}) and AFTER (this code, commit {after.get('commit') or '?'}, "
            f"measured {after.get('measured', '?')}); "
            "same embedder, fresh ingests of both corpora. BEFORE is made by `python -m benchmarks.extract before` "
            f"(`git archive {BEFORE_COMMIT}` into a temporary folder, this module beside it, its `measure` run there) "
            "and kept in `benchmarks/extract_before.json`; AFTER comes from the indexes of this `make bench`. "
            f"The difference is the extractor changes and every other change since {BEFORE_COMMIT} "
            "(recipes included: see the other sections).",
            "",
            *_retrieval_table(before, after),
            "",
            *_changes(before, after),
        ]
        graphs = [
            f"{label} {run[key]['entities']:,} entities / {run[key]['relations']:,} relations"
            for key in ("workshop_graph", "musique_graph")
            for label, run in (("BEFORE", before), ("AFTER", after))
            if key in run
        ]
        if graphs:
            lines += ["", "Graphs (workshop, then MuSiQue-100): " + "; ".join(graphs) + "."]
        questions = dict(workshop().queries)
        for label, run in (("BEFORE", before), ("AFTER", after)):
            if run.get("entity_hits"):
                junk = junk_hits(run, gold)
                lines += [
                    "",
                    f"Top-10 ENTITY hits of the 20 workshop questions, {label}: {len(junk)} distinct hits outside "
                    "the gold list" + (f" ({', '.join(junk)})" if junk else "") + ".",
                    *(["", *_junk_table(run, gold, questions)] if per_question else []),
                ]
        for label, run in (("BEFORE", before), ("AFTER", after)):
            if per_question and run.get("babbage_top20"):
                shown = [h if gold.contains(h) else f"~~{h}~~" for h in run["babbage_top20"]]
                junk = [h for h in run["babbage_top20"] if not gold.contains(h)]
                lines += ["", f"Top-20 ENTITY hits of \"{BABBAGE}\", {label} ({len(junk)} outside the gold list): "
                          + ", ".join(shown) + "."]
    return lines


def _commit() -> str | None:
    """The checkout's short commit id, or ``None`` outside a git checkout."""
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or None if done.returncode == 0 else None


def load_before(path: Path = BEFORE_FILE) -> dict[str, Any] | None:
    """The BEFORE figures (retrieval runs and the BEFORE extractor's silver/gold scores), if made."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def bench(graphs: Mapping[str, Graph]) -> list[str]:
    """The ``make bench`` section: AFTER from ``graphs`` (``"musique"`` and ``"workshop"``, just built), BEFORE from :data:`BEFORE_FILE`."""
    after: dict[str, Any] = {"measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": _commit()}
    if "workshop" in graphs:
        after.update(workshop_run(graphs["workshop"]))
    if "musique" in graphs:
        after.update(musique_run(graphs["musique"]))
    before = load_before()
    return section(before, after, (before or {}).get("quality"))


def measure_before(out: Path = BEFORE_FILE, *, corpora: Sequence[str] = ("workshop", "musique")) -> dict[str, Any]:
    """Measure BEFORE again: commit :data:`BEFORE_COMMIT` exported with git, this module's ``measure`` run in it.

    The figures replace those of ``out`` (its ``quality`` block, the BEFORE
    extractor's silver and gold scores, is kept) and are returned.
    """
    with tempfile.TemporaryDirectory(prefix="agrag-before-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", BEFORE_COMMIT], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
        shutil.copy(Path(__file__), src / "benchmarks" / "extract.py")
        figures = Path(tmp) / "before.json"
        env = {**os.environ, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}
        subprocess.run(
            [sys.executable, "-m", "benchmarks.extract", "measure", "--root", str(Path(tmp) / "idx"),
             "--out", str(figures), "--corpora", *corpora],
            cwd=src, env=env, check=True,
        )
        run = json.loads(figures.read_text(encoding="utf-8"))
    old = load_before(out) or {}
    merged = {**old, **run, "commit": BEFORE_COMMIT}
    out.write_text(json.dumps(merged, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return merged


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="ingest both corpora and save the retrieval figures")
    m.add_argument("--root", type=Path, required=True)
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--musique-questions", type=int, default=None)
    m.add_argument("--reuse", type=Path, default=None, help="copy this earlier run's indexes and rebuild their graphs")
    m.add_argument("--corpora", nargs="+", default=["workshop", "musique"], choices=["workshop", "musique"])
    b = sub.add_parser("before", help=f"measure commit {BEFORE_COMMIT} again into {BEFORE_FILE.name}")
    b.add_argument("--out", type=Path, default=BEFORE_FILE)
    b.add_argument("--corpora", nargs="+", default=["workshop", "musique"], choices=["workshop", "musique"])
    s = sub.add_parser("section", help="print the BENCHMARKS.md section")
    s.add_argument("--after", type=Path, required=True, help="the AFTER figures, from `measure` on this code")
    args = parser.parse_args(argv)
    if args.command == "measure":
        figures = measure_retrieval(
            args.root, musique_questions=args.musique_questions, reuse=args.reuse, corpora=tuple(args.corpora)
        )
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
        return 0
    if args.command == "before":
        measure_before(args.out, corpora=args.corpora)
        print(f"wrote {args.out}", file=sys.stderr)
        return 0
    before = load_before()
    after = json.loads(args.after.read_text(encoding="utf-8"))
    print("\n".join(section(before, after, (before or {}).get("quality"), per_question=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
