"""How well the built-in agent cites: valid citations, and citations of gold evidence.

:func:`bench` asks the agent every workshop question (each in a fresh
evidence session, so nothing fetched for one question can be cited for
another) and measures:

``citations_valid``
    Share of answers that cite at least one passage and whose every citation
    passes ``check_citations`` (the agent guarantees the second part; the
    first says it found something to cite).
``gold_passage``
    Share of answers with at least one cited passage that *points at gold
    evidence*: its fetched text contains a gold passage of the question, or
    overlaps it (the longest run of consecutive words they share covers at
    least half of the gold passage, and at least five words); see
    :func:`agrag_lab.agent.text.overlaps`.
``all_gold_passages``
    Share of answers whose cited passages, together, point at every gold
    passage of the question (stricter: both hops of a two-hop question).
``gold_document``
    Share of answers citing at least one passage of a gold document (looser).
``answer_bearing``
    Share of answers that point at gold evidence (``gold_passage``) *and*
    state the answer: every content word (Snowball stem, stopwords dropped)
    of the gold answer's first clause (up to the first ``,``, ``;`` or ``(``)
    is in the answer text (:func:`answer_present`). Questions without a gold
    answer count as not answer-bearing.

Examples
--------
>>> from agrag_lab import Graph                      # doctest: +SKIP
>>> report = bench(Graph.open("index", read_only=True))  # doctest: +SKIP
>>> report["gold_passage"]                            # doctest: +SKIP
0.9
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agrag_lab.agent.core import Agent
from agrag_lab.agent.policy import ExtractivePolicy
from agrag_lab.agent.text import overlaps, terms
from agrag_lab.datasets import Dataset, workshop
from agrag_lab.llm import ChatClient, LLMSettings

if TYPE_CHECKING:
    from agrag_lab.graph import Graph

__all__ = ["DEFINITION", "answer_present", "bench", "score_answer"]

#: What "points at gold evidence" means, as reported.
DEFINITION = (
    "a cited passage points at gold evidence when its fetched text contains a gold passage, or the "
    "longest run of consecutive words they share covers at least half of the gold passage (and at least "
    "five words); text compared lower-cased, Markdown emphasis removed, whitespace collapsed"
)


def answer_present(answer: str, gold_answer: str | None) -> bool:
    """Whether ``answer`` states ``gold_answer``: the content stems of its first clause are all in it.

    Examples
    --------
    >>> answer_present("Charles Babbage was born in London on 26 December 1791 [x@0123456789ab#c0].",
    ...                "In London, on 26 December 1791")
    True
    >>> answer_present("Ada worked with Babbage.", "Augustus De Morgan")
    False
    """
    if not gold_answer:
        return False
    clause = re.split(r"[,;(]", gold_answer, maxsplit=1)[0]
    wanted = set(terms(clause))
    return bool(wanted) and wanted <= set(terms(answer))


def score_answer(cited: Mapping[str, str], gold: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """Score one answer: ``cited`` maps cited ids to their fetched text; ``gold`` is the gold list.

    Examples
    --------
    >>> score_answer({"ada@0123456789ab#c0": "Ada wrote Note G. She died in 1852."},
    ...              [{"document_id": "ada", "passage": "Ada wrote Note G."}])["gold_passage"]
    True
    """
    hit_passages = [
        any(overlaps(text, g["passage"]) and cid.split("@", 1)[0] == g["document_id"] for cid, text in cited.items())
        or any(overlaps(text, g["passage"]) for text in cited.values())
        for g in gold
    ]
    gold_docs = {g["document_id"] for g in gold}
    return {
        "gold_passage": any(hit_passages),
        "all_gold_passages": bool(gold) and all(hit_passages),
        "gold_document": any(cid.split("@", 1)[0] in gold_docs for cid in cited),
    }


def bench(
    graph: Graph,
    *,
    dataset: Dataset | None = None,
    llm: LLMSettings | ChatClient | None = None,
    policy: ExtractivePolicy | None = None,
    details: bool = False,
) -> dict[str, Any]:
    """Run the agent on every question of ``dataset`` (default: the workshop) and score it.

    Parameters
    ----------
    graph : Graph
        An index holding the dataset's documents.
    dataset : Dataset, optional
        Questions with ``extra[qid]["gold"]`` lists of ``{document_id, passage}``.
    llm : LLMSettings or ChatClient, optional
        A chat endpoint; default the offline extractive policy.
    policy : ExtractivePolicy, optional
        Settings of the offline policy.
    details : bool
        Add ``per_question`` rows (id, question, answer, cited ids, scores,
        steps, seconds, notes).

    Returns
    -------
    dict
        Scalars only unless ``details`` (so ``make bench`` prints it as a
        table): ``dataset``, ``policy``, ``questions``, the shares
        ``citations_valid``, ``gold_passage``, ``all_gold_passages`` and
        ``gold_document``, ``mean_seconds`` per question, ``definition``.
    """
    ds = dataset if dataset is not None else workshop()
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for qid, question in ds.queries.items():
        session = graph.evidence()
        with Agent(session, llm, policy=policy) as agent:
            answer = agent.ask(question)
        cited_ids = list(answer.cited_ids)
        texts = {t.id: t.text for t in session.fetch(cited_ids).texts} if cited_ids else {}
        gold = list(ds.extra.get(qid, {}).get("gold", ()))
        scores = score_answer(texts, gold)
        stated = answer_present(answer.body, ds.extra.get(qid, {}).get("answer"))
        rows.append({
            "id": qid,
            "question": question,
            "answer": answer.body,
            "cited": cited_ids,
            "all_valid": answer.all_valid and bool(cited_ids),
            **scores,
            "answer_present": stated,
            "answer_bearing": bool(scores["gold_passage"]) and stated,
            "steps": len(answer.steps),
            "seconds": answer.seconds,
            "notes": list(answer.notes),
        })
    n = len(rows) or 1

    def share(key: str) -> float:
        return round(sum(1 for r in rows if r[key]) / n, 4)

    policy_name = "extractive" if llm is None else f"llm:{llm.settings.model if isinstance(llm, ChatClient) else llm.model}"
    out: dict[str, Any] = {
        "dataset": ds.name,
        "policy": policy_name,
        "questions": len(rows),
        "citations_valid": share("all_valid"),
        "gold_passage": share("gold_passage"),
        "all_gold_passages": share("all_gold_passages"),
        "gold_document": share("gold_document"),
        "answer_present": share("answer_present"),
        "answer_bearing": share("answer_bearing"),
        "mean_seconds": round(sum(r["seconds"] for r in rows) / n, 3),
        "total_seconds": round(time.perf_counter() - started, 1),
        "definition": DEFINITION,
    }
    if details:
        out["per_question"] = rows
    return out
