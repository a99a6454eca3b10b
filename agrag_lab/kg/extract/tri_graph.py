"""LinearRAG's relation-free tri-graph (entities, sentences, passages) in our graph model.

LinearRAG (DEEP-PolyU/LinearRAG, ``src/LinearRAG.py::index``, ``src/ner.py::SpacyNER``) builds its
graph with no LLM: a named-entity recognizer finds the entities of each passage and the sentence
each occurrence sits in; an entity is its exact surface text (no resolution, case kept); a sentence
is its exact text. Here that graph is a :class:`~agrag_lab.kg.model.KnowledgeGraph`, so every
view, the ledger, the exports and both graph stores read it as they read the rule graph:

- each entity is an :class:`~agrag_lab.kg.model.Entity` (its spaCy label mapped to ours,
  :data:`LABELS`); its ``chunk_ids`` are LinearRAG's entity-passage edges;
- each sentence that names an entity is an entity of label :data:`SENTENCE` (id
  ``ent-sentence-<sha1 prefix>``, name: the sentence), held by the passages it occurs in;
- an entity-sentence edge is an :class:`~agrag_lab.kg.model.Edge` of type :data:`IN_SENTENCE`
  from the entity to the sentence, supported by the passages where the recognizer found it there;
- LinearRAG's adjacent-passage edges link consecutive passages; they need no record: the index
  keeps every passage's place (:func:`adjacent_passages` reads it from the graph's chunk order).

Entities and sentences carry the attribute :data:`EMBEDS_NAME`: their record embeds their name
alone (the entity's text, the sentence), as LinearRAG's embedding stores embed them.

An extractor (:mod:`agrag_lab.kg.extract.spacy_ner`) writes each chunk's recognition as an
:class:`~agrag_lab.kg.extract.extraction.Extraction` (:func:`chunk_extraction`): entity mentions, one
:data:`SENTENCE` mention per sentence with an entity, and an :data:`IN_SENTENCE` relation per
(entity, sentence); :func:`tri_graph` assembles a corpus of them.

Examples
--------
>>> from agrag_lab.kg.extract.build import ChunkExtraction
>>> text = "Ada Lovelace met Charles Babbage. Babbage lived in London."
>>> x = chunk_extraction("d#c0", [("Ada Lovelace", "PERSON", 0, 12, 0, 33), ("Charles Babbage", "PERSON", 17, 32, 0, 33),
...                               ("Babbage", "PERSON", 34, 41, 34, 58), ("London", "GPE", 51, 57, 34, 58)], text)
>>> kg = tri_graph([ChunkExtraction("d#c0", "d", True, text, x)])
>>> sorted(e.name for e in kg.entities.values() if e.label != SENTENCE)
['Ada Lovelace', 'Babbage', 'Charles Babbage', 'London']
>>> sorted(kg.entities[e.target].name for e in kg.edges if e.source == "ent-babbage")
['Babbage lived in London.']
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agrag_lab.kg.extract.extraction import EntityMention, Extraction, RelationMention
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.schema import GraphSchema
from agrag_lab.kg.text import natural_key, slugify, trim_text
from agrag_lab.kg.tri_vocabulary import EMBEDS_NAME, IN_SENTENCE, SENTENCE, adjacent_passages, embeds_name

if TYPE_CHECKING:
    from agrag_lab.kg.extract.build import ChunkExtraction

__all__ = [
    "EMBEDS_NAME",
    "IN_SENTENCE",
    "LABELS",
    "SENTENCE",
    "SKIPPED_LABELS",
    "TRI_GRAPH_SCHEMA",
    "adjacent_passages",
    "chunk_extraction",
    "embeds_name",
    "is_sentence",
    "tri_graph",
]

#: spaCy's labels LinearRAG leaves out (``ner.py``: ``ORDINAL`` and ``CARDINAL``).
SKIPPED_LABELS = frozenset({"ORDINAL", "CARDINAL"})
#: spaCy (OntoNotes) label -> our label; any other label is ``Entity``.
LABELS: Mapping[str, str] = {
    "PERSON": "Person", "ORG": "Organization", "GPE": "Place", "LOC": "Place", "FAC": "Place",
    "DATE": "Date", "TIME": "Date", "EVENT": "Event", "WORK_OF_ART": "Work", "NORP": "Concept",
    "LAW": "Work", "PRODUCT": "Machine", "LANGUAGE": "Concept",
}
#: The tri-graph's schema: our labels plus :data:`SENTENCE`, one relation type.
TRI_GRAPH_SCHEMA = GraphSchema(
    ("Person", "Place", "Organization", "Work", "Machine", "Concept", "Event", "Date", SENTENCE, "Entity"),
    (IN_SENTENCE, "RELATED_TO"),
)

#: A recognised entity in a chunk: ``(text, spaCy label, start, end, sentence start, sentence end)``, offsets in the chunk.
Recognised = tuple[str, str, int, int, int, int]


def sentence_id(text: str) -> str:
    """The id of the sentence node of ``text`` (its exact text names it).

    Examples
    --------
    >>> sentence_id("Ada met Babbage.")
    'ent-sentence-e6e93f1d7575'
    """
    return "ent-sentence-" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def is_sentence(entity: Entity) -> bool:
    """Whether ``entity`` is a sentence node of a tri-graph."""
    return entity.label == SENTENCE


def chunk_extraction(chunk_id: str, found: Iterable[Recognised], text: str) -> Extraction:
    """One chunk's recognition as an :class:`Extraction` (LinearRAG's ``extract_entities_sentences``).

    ``found`` holds the recognizer's entities in text order; those of a :data:`SKIPPED_LABELS` label
    are left out. Each sentence holding a kept entity becomes a :data:`SENTENCE` mention, and each
    (entity, sentence) pair an :data:`IN_SENTENCE` relation, once per chunk, in first-seen order.
    """
    entities: list[EntityMention] = []
    sentences: dict[str, EntityMention] = {}
    pairs: dict[tuple[str, str], RelationMention] = {}
    for name, label, start, end, s_start, s_end in found:
        if label in SKIPPED_LABELS or not name.strip():
            continue
        sentence = text[s_start:s_end]
        entities.append(EntityMention(name, label, chunk_id, start, end))
        sentences.setdefault(sentence, EntityMention(sentence, SENTENCE, chunk_id, s_start, s_end))
        pairs.setdefault((name, sentence), RelationMention(name, sentence, IN_SENTENCE, chunk_id, sentence))
    return Extraction((*entities, *sentences.values()), tuple(pairs.values()))


@dataclass
class _Node:
    """What the corpus says of one entity or sentence (exact text) while the graph is assembled."""

    labels: Counter[str] = field(default_factory=Counter)
    current: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    forms: set[tuple[str, str]] = field(default_factory=set)
    described: dict[str, tuple[str, str]] = field(default_factory=dict)  # document -> (chunk, sentence)

    def add(self, chunk_id: str, current: bool) -> None:
        bucket = self.current if current else self.history
        if chunk_id not in bucket:
            bucket.append(chunk_id)


#: A node's key: (whether it is a sentence, its exact text).
_Key = tuple[bool, str]


def _ids(nodes: Mapping[_Key, _Node]) -> dict[_Key, str]:
    """An id per node: ``ent-<slug>`` of an entity's text (texts sharing a slug: the most mentioned
    keeps it, the others get a hash suffix), :func:`sentence_id` of a sentence's."""
    out: dict[_Key, str] = {}
    by_slug: dict[str, list[str]] = defaultdict(list)
    for sentence, text in nodes:
        if sentence:
            out[(True, text)] = sentence_id(text)
        else:
            by_slug[slugify(text)].append(text)
    for slug, texts in by_slug.items():
        ordered = sorted(texts, key=lambda t: (-len(nodes[(False, t)].current), t))
        out[(False, ordered[0])] = f"ent-{slug}"
        for text in ordered[1:]:
            out[(False, text)] = f"ent-{slug}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:8]}"
    return out


def _label(node: _Node, sentence: bool) -> str:
    if sentence:
        return SENTENCE
    spacy_label = max(sorted(node.labels), key=lambda lab: node.labels[lab])
    return LABELS.get(spacy_label, spacy_label if spacy_label in TRI_GRAPH_SCHEMA.entity_labels else "Entity")


def tri_graph(items: Iterable[ChunkExtraction]) -> KnowledgeGraph:
    """The tri-graph of a corpus's extractions (see the module docstring).

    Entities are keyed by their exact text (LinearRAG's ``entity_nodes``), sentences by theirs
    (``sentence_nodes``); chunks of superseded versions feed history only.

    Raises
    ------
    KnowledgeGraphError
        Two items share a chunk id.
    """
    from agrag_lab.kg.extract.build import ordered_chunks

    chunks = ordered_chunks(list(items))
    nodes: dict[_Key, _Node] = {}
    pairs: dict[tuple[_Key, _Key], _Node] = {}
    chunk_keys: dict[str, set[_Key]] = {}
    for item in chunks:
        local = chunk_keys.setdefault(item.chunk_id, set())
        for m in item.extraction.entities:
            key = (m.label == SENTENCE, m.name)
            node = nodes.setdefault(key, _Node())
            node.labels[m.label] += 1
            node.add(item.chunk_id, item.current)
            node.forms.add((item.document_id, m.name))
            local.add(key)
        for r in item.extraction.relations:
            ends = ((False, r.source), (True, r.target))
            if r.type != IN_SENTENCE or ends[0] not in local or ends[1] not in local:
                continue
            pair = pairs.setdefault(ends, _Node())
            pair.add(item.chunk_id, item.current)
            pair.described.setdefault(item.chunk_id, (item.chunk_id, r.target))
            described = nodes[ends[0]].described
            if item.document_id not in described and item.current:
                described[item.document_id] = (item.chunk_id, trim_text(r.target, 300))
    ids = _ids(nodes)
    documents = {item.chunk_id: item.document_id for item in chunks}
    current: list[Entity] = []
    past: list[Entity] = []
    for (sentence, text), node in nodes.items():
        descriptions = tuple(sorted(node.described.values(), key=lambda d: natural_key(d[0])))
        entity = Entity(
            id=ids[(sentence, text)], name=text, label=_label(node, sentence),
            description="" if sentence else (descriptions[0][1] if descriptions else ""),
            chunk_ids=tuple(sorted(node.current, key=natural_key)),
            history_chunk_ids=tuple(sorted(node.history, key=natural_key)),
            document_ids=tuple(sorted({documents[c] for c in node.current})),
            descriptions=() if sentence else descriptions,
            forms=tuple(sorted(node.forms)) if not sentence else (),
            attributes=((EMBEDS_NAME, True),),
        )
        (current if entity.current else past).append(entity)
    edges: list[Edge] = []
    past_edges: list[Edge] = []
    for (source, target), pair in pairs.items():
        edge = Edge(ids[source], ids[target], IN_SENTENCE,
                    tuple(sorted(pair.current, key=natural_key)), tuple(sorted(pair.history, key=natural_key)),
                    tuple(sorted(pair.described.values(), key=lambda d: natural_key(d[0]))))
        (edges if edge.chunk_ids else past_edges).append(edge)
    mentions = {chunk: {ids[k] for k in keys} for chunk, keys in chunk_keys.items()}
    return KnowledgeGraph.create(current, edges, past, past_edges, mentions, documents,
                                 [item.chunk_id for item in chunks if item.current], TRI_GRAPH_SCHEMA)
