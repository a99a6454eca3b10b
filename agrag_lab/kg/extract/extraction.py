"""Entity and relation extraction from one chunk at a time.

An :class:`Extractor` turns a :class:`~agrag_lab.documents.Chunk` (plus a
:class:`DocumentContext`) into an :class:`Extraction`. :class:`RuleExtractor` is
deterministic and needs no model; an LLM-backed extractor implements the same
protocol (``extract`` and a ``version`` string that changes whenever its
prompt or model changes, because callers cache extractions under it) and can
reuse :func:`with_given_facts` so that facts given in document metadata are
honoured the same way.

Given facts: ``document.metadata["entities"]`` is a list of
``{"name", "label"?, "description"?, "aliases"?}`` and
``document.metadata["relations"]`` a list of ``{"source", "target", "type"?}``.
An entity is emitted in every chunk whose text contains its name or an alias;
a relation in every chunk that contains both ends. A fact found in no chunk is
attached to the first chunk (index 0) with offsets ``-1``; when
:attr:`DocumentContext.text` is empty the builder cannot know where else a fact
appears, so the first chunk always carries it.

Examples
--------
>>> from agrag_lab.documents import Chunk
>>> from agrag_lab.ids import version_hash
>>> text = "Ada Lovelace worked with Charles Babbage on the Analytical Engine."
>>> chunk = Chunk("ada", version_hash(text), 0, text, 0, len(text), "paragraph", 0, ())
>>> result = RuleExtractor().extract(chunk, DocumentContext("ada", "Ada Lovelace"))
>>> [(e.name, e.label) for e in result.entities]
[('Ada Lovelace', 'Person'), ('Charles Babbage', 'Person'), ('Analytical Engine', 'Machine')]
>>> [(r.source, r.type, r.target) for r in result.relations][:2]
[('Ada Lovelace', 'WORKED_WITH', 'Charles Babbage'), ('Ada Lovelace', 'RELATED_TO', 'Analytical Engine')]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from agrag_lab.documents import Chunk, Document, read_given_facts
from agrag_lab.kg.extract import lexicon as lx
from agrag_lab.kg.extract.rules import Rules
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import match_key, split_sentences

__all__ = [
    "BatchExtractor",
    "DocumentContext",
    "EntityMention",
    "Extraction",
    "Extractor",
    "GivenEntity",
    "GivenRelation",
    "RelationMention",
    "RuleExtractor",
    "given_facts",
    "with_given_facts",
]


@dataclass(frozen=True)
class DocumentContext:
    """What an extractor may know about the document a chunk comes from.

    Parameters
    ----------
    id, title : str
        The document's id and title.
    metadata : mapping
        The document metadata, including given ``entities``/``relations``.
    text : str
        Optional full text of the version; lets given facts that no chunk
        mentions fall back to the first chunk (see the module docstring).
    """

    id: str
    title: str
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False)
    text: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    @classmethod
    def from_document(cls, document: Document, *, with_text: bool = True) -> DocumentContext:
        """Context of ``document`` (with its text unless ``with_text`` is false).

        Examples
        --------
        >>> d = Document("bab", "Charles Babbage", "Babbage was born in London.")
        >>> DocumentContext.from_document(d).title
        'Charles Babbage'
        """
        return cls(
            document.id,
            document.title,
            document.metadata,
            document.text if with_text else "",
        )


@dataclass(frozen=True)
class EntityMention:
    """One mention of an entity in one chunk.

    ``start``/``end`` are offsets in the chunk text, ``-1`` when the mention
    comes from the title or metadata. ``aliases`` and ``description`` are only
    set for given entities (or by extractors that know them); ``given`` marks
    entities stated in document metadata, whose name and label are authoritative.
    ``initial`` marks a name found only by its capital where every word is
    capitalised (a sentence or table-cell start): the corpus must confirm it
    (:func:`~agrag_lab.kg.extract.confirmation.confirm_names`).
    """

    name: str
    label: str
    chunk_id: str
    start: int = -1
    end: int = -1
    description: str = ""
    aliases: tuple[str, ...] = ()
    given: bool = False
    initial: bool = False


@dataclass(frozen=True)
class RelationMention:
    """A relation stated in one chunk: ``source`` and ``target`` are entity names.

    ``sentence`` is the text that states it; an LLM extractor also gives a
    written ``description`` and a ``strength`` (1-10, ``None`` when not given).
    """

    source: str
    target: str
    type: str
    chunk_id: str
    sentence: str = ""
    description: str = ""
    strength: float | None = None


@dataclass(frozen=True)
class Extraction:
    """Everything extracted from one chunk.

    ``failure`` says why an extractor could not read the chunk (an LLM that
    answered invalid JSON twice, an endpoint that failed): such an extraction
    is empty for that reason, not because the chunk names nothing.
    """

    entities: tuple[EntityMention, ...] = ()
    relations: tuple[RelationMention, ...] = ()
    failure: str = ""


@runtime_checkable
class Extractor(Protocol):
    """Turns one chunk into an :class:`Extraction`.

    ``version`` names the extractor's behaviour (rules, model, prompt); callers
    cache extractions under it, so it must change whenever output could change.
    """

    @property
    def version(self) -> str:
        """Cache key of this extractor's behaviour."""
        ...

    def extract(self, chunk: Chunk, document: DocumentContext) -> Extraction:
        """Extract entities and relations from ``chunk``."""
        ...


@runtime_checkable
class BatchExtractor(Extractor, Protocol):
    """An :class:`Extractor` that also extracts many chunks at once (an LLM extractor asks concurrently).

    :func:`~agrag_lab.kg.extract.pipeline.extract_batch` gives such an
    extractor all its ``(chunk, document)`` pairs in one call.
    """

    def extract_many(self, items: Sequence[tuple[Chunk, DocumentContext]]) -> list[Extraction]:
        """The extractions of ``items``, in input order."""
        ...


# --------------------------------------------------------------------------- given facts


@dataclass(frozen=True)
class GivenEntity:
    """An entity stated in document metadata."""

    name: str
    label: str
    description: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def forms(self) -> tuple[str, ...]:
        """The name and its aliases."""
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class GivenRelation:
    """A relation stated in document metadata."""

    source: str
    target: str
    type: str


def given_facts(
    document: DocumentContext, schema: GraphSchema = GENERIC
) -> tuple[tuple[GivenEntity, ...], tuple[GivenRelation, ...]]:
    """Parse and check the entities and relations given in ``document.metadata``.

    Labels and relation types are normalised with ``schema`` (unknown ones
    become the schema defaults).

    Raises
    ------
    KnowledgeGraphError
        An entry is not a mapping, or lacks a name / source / target.

    Examples
    --------
    >>> ctx = DocumentContext("d", "T", {"entities": [{"name": "Ada", "label": "person"}]})
    >>> given_facts(ctx)
    ((GivenEntity(name='Ada', label='Person', description='', aliases=()),), ())
    """
    entities, relations = read_given_facts(document.id, document.metadata)
    return (
        tuple(GivenEntity(e.name, schema.normalise_label(e.label), e.description, e.aliases) for e in entities),
        tuple(GivenRelation(r.source, r.target, schema.normalise_relation_type(r.type)) for r in relations),
    )


def _form_pattern(forms: Sequence[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(f) for f in sorted(set(forms), key=lambda f: (-len(f), f)))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def _first_sentence_with(text: str, patterns: Sequence[re.Pattern[str]]) -> str:
    for a, b in split_sentences(text):
        sentence = text[a:b]
        if all(p.search(sentence) for p in patterns):
            return sentence
    return ""


def with_given_facts(
    chunk: Chunk,
    document: DocumentContext,
    extraction: Extraction,
    schema: GraphSchema = GENERIC,
) -> Extraction:
    """Add the facts given in ``document.metadata`` to ``extraction``.

    Any extractor can call this last so given facts are honoured uniformly.
    Rule-extracted mentions that overlap an occurrence of a given entity are
    replaced by the given entity.

    Examples
    --------
    >>> from agrag_lab.ids import version_hash
    >>> text = "Byron's daughter wrote the Notes."
    >>> chunk = Chunk("ada", version_hash(text), 0, text, 0, len(text), "paragraph", 0, ())
    >>> ctx = DocumentContext("ada", "Ada", {"entities": [{"name": "Lord Byron", "aliases": ["Byron"]}]})
    >>> [(m.name, m.start) for m in with_given_facts(chunk, ctx, Extraction()).entities]
    [('Lord Byron', 0)]
    """
    entities, relations = given_facts(document, schema)
    if not entities and not relations:
        return extraction
    text, chunk_id = chunk.text, chunk.id
    by_key: dict[str, GivenEntity] = {}
    for given in entities:
        for form in given.forms:
            by_key.setdefault(match_key(form), given)
    added: list[EntityMention] = []
    for given in entities:
        pattern = _form_pattern(given.forms)
        hits = list(pattern.finditer(text))
        for hit in hits:
            added.append(
                EntityMention(
                    given.name,
                    given.label,
                    chunk_id,
                    hit.start(),
                    hit.end(),
                    given.description,
                    given.aliases,
                    True,
                )
            )
        if not hits and chunk.index == 0 and not (document.text and pattern.search(document.text)):
            added.append(
                EntityMention(
                    given.name,
                    given.label,
                    chunk_id,
                    -1,
                    -1,
                    given.description,
                    given.aliases,
                    True,
                )
            )
    covered = [(m.start, m.end) for m in added if m.start >= 0]
    kept = [m for m in extraction.entities if m.start < 0 or not any(m.start < b and a < m.end for a, b in covered)]
    new_relations: list[RelationMention] = []
    for rel in relations:
        ends = []
        for name in (rel.source, rel.target):
            known = by_key.get(match_key(name))
            ends.append((known.name, _form_pattern(known.forms)) if known else (name, _form_pattern([name])))
        (source, source_pattern), (target, target_pattern) = ends
        if source_pattern.search(text) and target_pattern.search(text):
            sentence = _first_sentence_with(text, (source_pattern, target_pattern))
            new_relations.append(RelationMention(source, target, rel.type, chunk_id, sentence))
        elif chunk.index == 0 and not any(
            source_pattern.search(p) and target_pattern.search(p) for p in _paragraphs(document.text)
        ):
            new_relations.append(RelationMention(source, target, rel.type, chunk_id, ""))
    merged = sorted([*kept, *added], key=lambda m: (m.start, -m.end, m.name))
    return Extraction(tuple(merged), (*extraction.relations, *new_relations), extraction.failure)


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class RuleExtractor:
    """Deterministic, model-free extractor (capitalisation, cue words, patterns).

    Candidates are multi-word capitalised spans (with connector words such as
    "of", "de", "von", "the" inside), single capitalised words that are not
    common sentence-initial words, quoted or italic titles (labelled Work),
    the document title (first chunk only, offsets ``-1``) and first-column
    and header cells of tables. Labels come from head words ("Engine" →
    Machine, "Society" → Organization), titles ("Lord"), given names, and
    cues ("born in X" → Place). Relations link names in the same sentence:
    typed by the text between two adjacent names ("worked with" →
    WORKED_WITH, "written by" → WROTE reversed), otherwise ``RELATED_TO``.

    Parameters
    ----------
    schema : GraphSchema
        Labels and relation types are normalised with it.
    include_title : bool
        Emit the document title as an entity of the first chunk.
    include_dates : bool
        Keep month names and years as ``Date`` entities (off: they make hubs).
    pair_window : int
        Each name is related to at most this many following names in its sentence.
    max_name_tokens : int
        Longer capitalised runs are not names.

    Examples
    --------
    >>> RuleExtractor().version
    'rules-9;title=1;dates=0;window=4;tokens=10'
    """

    schema: GraphSchema = GENERIC
    include_title: bool = True
    include_dates: bool = False
    pair_window: int = 4
    max_name_tokens: int = 10

    @property
    def version(self) -> str:
        """Cache key: the rules version plus every option that changes output."""
        return (
            f"{lx.RULES_VERSION};title={int(self.include_title)};dates={int(self.include_dates)};"
            f"window={self.pair_window};tokens={self.max_name_tokens}"
        )

    def rules(self) -> Rules:
        """The :class:`~agrag_lab.kg.extract.rules.Rules` these options configure."""
        return Rules(self.schema, self.include_dates, self.pair_window, self.max_name_tokens)

    def extract(self, chunk: Chunk, document: DocumentContext) -> Extraction:
        """Extract entities and relations from ``chunk`` (see the class docstring)."""
        text, chunk_id = chunk.text, chunk.id
        rules = self.rules()
        sentences = split_sentences(text)
        chosen = rules.candidates(text, sentences, chunk.table)
        mentions = [EntityMention(c.name, c.label, chunk_id, c.start, c.end, initial=c.initial) for c in chosen]
        title = rules.title_candidate(document.title) if self.include_title and chunk.index == 0 else None
        if title is not None and match_key(title.name) not in {match_key(c.name) for c in chosen}:
            mentions.insert(0, EntityMention(title.name, title.label, chunk_id))
        relations = [
            RelationMention(p.source.name, p.target.name, p.type, chunk_id, p.sentence)
            for p in rules.pairs(text, sentences, chosen, chunk.table)
        ]
        return with_given_facts(chunk, document, Extraction(tuple(mentions), tuple(relations)), self.schema)
