"""Diagnostics: a printable summary of a graph store and a multi-hop linkage measure.

:func:`summary` is what ``agrag-lab graph --index DIR`` prints.
:func:`musique_linkage` measures how well the graph links the evidence of
multi-hop questions.

**Linkage, defined.** Two passages A and B are *linked within k hops* when some
entity mentioned in A and some entity mentioned in B are at most ``k``
entity–entity hops apart in the current, undirected entity graph (within the
scope): ``A → e1 → (relation)* → e2 ← B``. With ``k = 0`` they must share an
entity. A question's gold passages are linked when the "linked" relation
connects them all (``mode="connected"``: every gold passage reachable from
every other, possibly through another gold passage, which is how hops chain
in a multi-hop question) or, stricter, when every pair is linked directly
(``mode="all_pairs"``). A question with fewer than two gold passages counts
as linked.

Examples
--------
>>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
>>> from agrag_lab.graph_stores.networkx import NetworkXGraphStore
>>> ents = [Entity("ent-a", "A", "Entity", chunk_ids=("p1",)), Entity("ent-b", "B", "Entity", chunk_ids=("p2",))]
>>> kg = KnowledgeGraph.create(ents, [Edge("ent-a", "ent-b", "RELATED_TO", ("p3",))],
...                            mentions={"p1": ["ent-a"], "p2": ["ent-b"], "p3": []},
...                            chunk_documents={"p1": "d1", "p2": "d2", "p3": "d3"})
>>> store = NetworkXGraphStore(kg)
>>> musique_linkage(store, [["p1", "p2"]], max_hops=1), musique_linkage(store, [["p1", "p2"]], max_hops=0)
(1.0, 0.0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from agrag_lab.errors import DatasetError
from agrag_lab.kg.graph_store import GraphStore, WholeGraph
from agrag_lab.kg.scope import GraphScope

__all__ = ["musique_gold_chunks", "musique_linkage", "question_linked", "summary"]


def question_linked(
    store: GraphStore,
    gold_chunk_ids: Sequence[str],
    max_hops: int = 2,
    mode: Literal["connected", "all_pairs"] = "connected",
    scope: GraphScope | None = None,
) -> bool:
    """Whether the gold passages of one question are linked (see the module docstring)."""
    chunks = list(dict.fromkeys(gold_chunk_ids))
    if len(chunks) < 2:
        return True
    reach = []
    mentioned = []
    for chunk_id in chunks:
        entities = [e.id for e in store.mentions(chunk_id, scope)]
        mentioned.append(set(entities))
        reach.append(set(store.shortest_path_lengths(entities, max_hops, scope)) if entities else set())
    n = len(chunks)
    linked = [[bool(reach[i] & mentioned[j]) for j in range(n)] for i in range(n)]
    if mode == "all_pairs":
        return all(linked[i][j] for i in range(n) for j in range(i + 1, n))
    component, frontier = {0}, [0]
    while frontier:
        i = frontier.pop()
        for j in range(n):
            if j not in component and linked[i][j]:
                component.add(j)
                frontier.append(j)
    return len(component) == n


def musique_linkage(
    store: GraphStore,
    questions: Iterable[Sequence[str]],
    max_hops: int = 2,
    mode: Literal["connected", "all_pairs"] = "connected",
    scope: GraphScope | None = None,
) -> float:
    """Share of questions whose gold passages are linked within ``max_hops`` entity hops.

    Parameters
    ----------
    store : GraphStore
        A store built over the corpus (one chunk per passage).
    questions : iterable of sequences of str
        Per question, the chunk ids of its gold passages (see
        :func:`musique_gold_chunks`).
    max_hops : int
        Entity–entity hops allowed between an entity of one passage and an
        entity of the other (0: a shared entity).
    mode : {"connected", "all_pairs"}
        See the module docstring.

    Returns
    -------
    float
        In ``[0, 1]``; ``0.0`` for no questions.
    """
    results = [question_linked(store, q, max_hops, mode, scope) for q in questions]
    return sum(results) / len(results) if results else 0.0


def musique_gold_chunks(
    records: Iterable[Mapping[str, Any]], chunk_id_of: Mapping[tuple[str, str], str]
) -> list[tuple[str, ...]]:
    """Gold chunk ids per MuSiQue question record.

    Gold passages are the ``paragraphs`` with ``is_supporting``; each maps to
    a chunk by ``(title, paragraph_text)``.

    Raises
    ------
    DatasetError
        A gold passage has no chunk in ``chunk_id_of``.

    Examples
    --------
    >>> q = {"id": "q1", "paragraphs": [{"title": "T", "paragraph_text": "x", "is_supporting": True},
    ...                                 {"title": "U", "paragraph_text": "y", "is_supporting": False}]}
    >>> musique_gold_chunks([q], {("T", "x"): "mq-0@00000000#c0"})
    [('mq-0@00000000#c0',)]
    """
    out = []
    for record in records:
        gold = []
        for paragraph in record["paragraphs"]:
            if not paragraph.get("is_supporting"):
                continue
            key = (paragraph["title"], paragraph["paragraph_text"])
            if key not in chunk_id_of:
                raise DatasetError(
                    f"question {record.get('id')!r}: gold passage {paragraph['title']!r} is not in the "
                    "corpus mapping; build chunk_id_of from the same corpus file"
                )
            gold.append(chunk_id_of[key])
        out.append(tuple(gold))
    return out


def _table(rows: list[tuple[str, str]], indent: str = "  ") -> list[str]:
    width = max((len(a) for a, _ in rows), default=0)
    return [f"{indent}{a.ljust(width)}  {b}" for a, b in rows]


def summary(store: GraphStore, top: int = 10) -> str:
    """A short, printable overview of ``store``.

    Counts of entities, relations, chunks and communities; entities per label
    and relations per type; the largest level-0 communities with report
    titles; the most connected entities.

    Examples
    --------
    >>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
    >>> from agrag_lab.graph_stores.networkx import NetworkXGraphStore
    >>> ents = [Entity("ent-a", "Ada", "Person", chunk_ids=("c",)), Entity("ent-b", "Babbage", "Person", chunk_ids=("c",))]
    >>> kg = KnowledgeGraph.create(ents, [Edge("ent-a", "ent-b", "WORKED_WITH", ("c",))], current_chunks=["c"])
    >>> print(summary(NetworkXGraphStore(kg)))
    Knowledge graph: 2 entities, 1 relations, 1 current chunks
    Labels: Person 2
    Relation types: WORKED_WITH 1
    Communities: 0
    Most connected entities:
      Ada (Person)      1 relations, 1 chunks
      Babbage (Person)  1 relations, 1 chunks
    """
    entities = store.entities()
    degree: dict[str, int] = {}
    types: Counter[str] = Counter()
    for entity in entities:
        edges = store.neighbours(entity.id)
        degree[entity.id] = len(edges)
        types.update(e.type for e in edges if e.source == entity.id)
    head = f"Knowledge graph: {len(entities):,} entities, {sum(types.values()):,} relations"
    if isinstance(store, WholeGraph):  # the declared capability: the graph in process says more
        graph = store.graph
        head += f", {len(graph.current_chunks):,} current chunks"
        if graph.history_entities or graph.history_edges:
            head += f" (history only: {len(graph.history_entities):,} entities, {len(graph.history_edges):,} relations)"
    labels = Counter(e.label for e in entities)
    lines = [
        head,
        "Labels: " + ", ".join(f"{k} {v:,}" for k, v in sorted(labels.items(), key=lambda i: (-i[1], i[0]))),
        "Relation types: " + ", ".join(f"{k} {v:,}" for k, v in sorted(types.items(), key=lambda i: (-i[1], i[0]))),
    ]
    communities = store.communities()
    levels = Counter(c.level for c in communities)
    line = f"Communities: {len(communities):,}"
    if levels:
        line += " (" + ", ".join(f"level {lv}: {n:,}" for lv, n in sorted(levels.items())) + ")"
        line += f"; reports: {len(store.reports()):,}"
    lines.append(line)
    largest = sorted((c for c in communities if c.level == 0), key=lambda c: (-c.size, c.id))[:top]
    if largest:
        lines.append("Largest communities:")
        rows = []
        for c in largest:
            report = store.report(c.id)
            rows.append((f"{c.id} ({c.size} entities)", report.title if report else ""))
        lines += _table(rows)
    by_id = {e.id: e for e in entities}
    connected = sorted(degree, key=lambda i: (-degree[i], by_id[i].name, i))[:top]
    if connected:
        lines.append("Most connected entities:")
        lines += _table(
            [
                (
                    f"{by_id[i].name} ({by_id[i].label})",
                    f"{degree[i]:,} relations, {by_id[i].mention_count:,} chunks",
                )
                for i in connected
            ]
        )
    return "\n".join(lines)
