"""How good an extractor's entities are: precision and recall against a reference list.

A reference is a list of ``(name, type)`` pairs: a hand-written gold list
(:class:`GoldList`, read from TOML) or the entities of a real GraphRAG index
(the *silver standard*: an LLM extracted them from the same text). Names are
compared by :func:`normalise_name` (see :data:`MATCHING`); an extracted entity
matches when its name or one of its aliases normalises to a reference name or
alias. :func:`score` gives precision (share of extracted entities that match)
and recall (share of reference entities matched), overall and per type.

Examples
--------
>>> normalise_name("The Analytical Engines"), normalise_name("Babbage's")
('analytical engine', 'babbage')
>>> ref = [Reference("Charles Babbage", "Person", ("Babbage",)), Reference("London", "Place")]
>>> got = [Extracted("Babbage", "Person"), Extracted("Hello", "Entity")]
>>> s = score(got, ref)
>>> (s.overall.precision, s.overall.recall), s.false_positives, s.false_negatives
((0.5, 0.5), ('Hello',), ('London',))
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agrag_lab.chunking import DEFAULT_CHUNK_SIZE, chunk_text
from agrag_lab.documents import Chunk, Document
from agrag_lab.ids import version_hash
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extract.extraction import DocumentContext, Extractor
from agrag_lab.kg.extract.pipeline import build_graph, extract_chunks
from agrag_lab.kg.text import match_key, singular_key

__all__ = [
    "MATCHING",
    "Extracted",
    "GoldList",
    "Reference",
    "Score",
    "TypeScore",
    "corpus_entities",
    "gold_score",
    "normalise_name",
    "score",
    "score_table",
    "silver_score",
    "strip_graphrag_title",
]

#: How names are matched, in words (for tables).
MATCHING = (
    "casefold + diacritics folded + punctuation to spaces + possessive 's dropped + leading "
    "article (the/a/an) dropped + last word singularised (engines -> engine, ies -> y)"
)

_ARTICLES = ("the ", "a ", "an ")


def normalise_name(name: str) -> str:
    """The key two names are compared under (see :data:`MATCHING`).

    Examples
    --------
    >>> normalise_name("MRS. FEZZIWIG"), normalise_name("the Royal Society")
    ('mrs fezziwig', 'royal society')
    >>> normalise_name("Notes"), normalise_name("Charles Dickens")
    ('note', 'charles dicken')
    """
    key = match_key(name)
    for article in _ARTICLES:
        if key.startswith(article):
            key = key[len(article) :]
    return singular_key(key)


@dataclass(frozen=True)
class Reference:
    """One entity by its names: a reference entity, or an extracted one (:data:`Extracted`).

    ``type`` is its label; ``aliases`` are the other names it is accepted or found under.
    """

    name: str
    type: str
    aliases: tuple[str, ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(k for k in (normalise_name(n) for n in (self.name, *self.aliases)) if k)


#: An extracted entity has the same shape as a reference one.
Extracted = Reference


@dataclass(frozen=True)
class TypeScore:
    """Precision and recall of one type (or of all: ``type == "all"``)."""

    type: str
    extracted: int
    reference: int
    precision: float
    recall: float

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class Score:
    """Overall and per-type scores, what did not match (names, sorted) and what is split in two."""

    overall: TypeScore
    by_type: tuple[TypeScore, ...] = ()
    false_positives: tuple[str, ...] = ()
    false_negatives: tuple[str, ...] = ()
    reference_count: int = 0
    #: Reference entities that two or more extracted entities match (duplicates), with those names.
    duplicates: tuple[tuple[str, tuple[str, ...]], ...] = ()


def _ratio(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def _matched_by(extracted: Sequence[Extracted], reference: Sequence[Reference]) -> list[set[int]]:
    """For each extracted entity, the reference entities one of its names matches."""
    owner: dict[str, list[int]] = {}
    for j, ref in enumerate(reference):
        for key in ref.keys:
            owner.setdefault(key, []).append(j)
    return [{j for key in ent.keys for j in owner.get(key, ())} for ent in extracted]


def _matches(extracted: Sequence[Extracted], reference: Sequence[Reference]) -> tuple[list[bool], list[bool]]:
    hits = _matched_by(extracted, reference)
    found = [False] * len(reference)
    for matched in hits:
        for j in matched:
            found[j] = True
    return [bool(m) for m in hits], found


def score(
    extracted: Iterable[Extracted],
    reference: Iterable[Reference],
    type_map: Mapping[str, str] | None = None,
) -> Score:
    """Precision and recall of ``extracted`` against ``reference``.

    ``type_map`` maps an extracted label to a reference type (``{"Place": "GEO"}``);
    per-type rows are given for the reference types, where an extracted
    entity counts for the type its label maps to.
    """
    got, ref = list(extracted), list(reference)
    good, found = _matches(got, ref)
    overall = TypeScore("all", len(got), len(ref), _ratio(sum(good), len(got)), _ratio(sum(found), len(ref)))
    mapping = dict(type_map or {})
    rows = []
    for kind in sorted({r.type for r in ref}):
        mine = [e for e in got if mapping.get(e.type, e.type) == kind]
        theirs = [r for r in ref if r.type == kind]
        g, f = _matches(mine, theirs)
        rows.append(TypeScore(kind, len(mine), len(theirs), _ratio(sum(g), len(mine)), _ratio(sum(f), len(theirs))))
    by_reference: dict[int, list[str]] = {}
    for ent, matched in zip(got, _matched_by(got, ref), strict=True):
        # an extracted name that matches several references (an alias shared by two) is no duplicate
        if len(matched) == 1:
            by_reference.setdefault(next(iter(matched)), []).append(ent.name)
    duplicates = tuple(
        sorted((ref[j].name, tuple(sorted(names))) for j, names in by_reference.items() if len(names) > 1)
    )
    return Score(
        overall,
        tuple(rows),
        tuple(sorted(e.name for e, ok in zip(got, good, strict=True) if not ok)),
        tuple(sorted(r.name for r, ok in zip(ref, found, strict=True) if not ok)),
        len(ref),
        duplicates,
    )


def score_table(result: Score) -> list[str]:
    """A Markdown table of ``result`` (overall first)."""
    lines = ["| type | extracted | reference | precision | recall | F1 |", "|---|---|---|---|---|---|"]
    for row in (result.overall, *result.by_type):
        name = "**all**" if row.type == "all" else row.type
        lines.append(
            f"| {name} | {row.extracted} | {row.reference} | {row.precision:.3f} | {row.recall:.3f} | {row.f1:.3f} |"
        )
    return lines


# --------------------------------------------------------------------------- gold list


@dataclass(frozen=True)
class GoldList:
    """Hand-written reference entities of a corpus (see :meth:`load`)."""

    entities: tuple[Reference, ...]
    _keys: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_keys", frozenset().union(*(r.keys for r in self.entities)))

    def contains(self, name: str) -> bool:
        """Whether ``name`` normalises to a gold name or alias."""
        return normalise_name(name) in self._keys

    @classmethod
    def load(cls, path: Path) -> GoldList:
        """Read ``[[entity]]`` tables (``name``, ``label``, optional ``aliases``) from TOML.

        Raises
        ------
        KnowledgeGraphError
            The file is missing, not TOML, or an entry lacks a name or label.
        """
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise KnowledgeGraphError(f"cannot read the gold list {path}: {exc}") from exc
        out = []
        for i, item in enumerate(data.get("entity", [])):
            name, label = item.get("name"), item.get("label")
            aliases = item.get("aliases", [])
            if not isinstance(name, str) or not name or not isinstance(label, str) or not label:
                raise KnowledgeGraphError(f"{path}: entity {i} needs a non-empty name and label, got {item!r}")
            if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
                raise KnowledgeGraphError(f"{path}: entity {name!r}: aliases must be a list of strings")
            out.append(Reference(name, label, tuple(aliases)))
        if not out:
            raise KnowledgeGraphError(f"{path} lists no [[entity]] tables")
        return cls(tuple(out))


_TITLE_LINE = re.compile(r"\Atitle: [^\n]*\n")


def strip_graphrag_title(text: str) -> str:
    """Drop the ``title: ...`` metadata line GraphRAG prepends to its text units.

    Examples
    --------
    >>> strip_graphrag_title("title: a-christmas-carol.txt.\\nMarley was dead.")
    'Marley was dead.'
    """
    return _TITLE_LINE.sub("", text, count=1)


# --------------------------------------------------------------------------- running an extractor


def corpus_entities(
    documents: Sequence[Document],
    extractor: Extractor | None = None,
    *,
    superseded: Sequence[Document] = (),
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> list[Extracted]:
    """The current entities of the graph ``extractor`` builds over ``documents``.

    Documents are chunked as an ingest chunks them; ``superseded`` are older
    versions (their chunks only add history, as in an index).

    Examples
    --------
    >>> docs = [Document("bab", "Charles Babbage", "Charles Babbage was born in London. Babbage met Ada Lovelace.")]
    >>> [(e.name, e.type) for e in corpus_entities(docs)]
    [('Ada Lovelace', 'Person'), ('Charles Babbage', 'Person'), ('London', 'Place')]
    """
    items = []
    for docs, current in ((documents, True), (superseded, False)):
        for doc in docs:
            _sections, chunks = chunk_text(
                doc.id, version_hash(doc.text), doc.text, doc.format, chunk_size=chunk_size, title=doc.title
            )
            context = DocumentContext.from_document(doc)
            items += [(chunk, context, current) for chunk in chunks]
    graph = build_graph(extract_chunks(items, extractor))
    return [Extracted(e.name, e.label, e.aliases) for e in graph.entities.values()]


#: GraphRAG's default entity types for our labels.
GRAPHRAG_TYPES: Mapping[str, str] = {
    "Person": "PERSON",
    "Organization": "ORGANIZATION",
    "Place": "GEO",
    "Event": "EVENT",
}

#: The real GraphRAG index of the silver standard, inside the shared datasets folder.
SILVER_PATH = Path("datasets") / "msgraphrag_christmas_carol" / "v3"


def silver_dir() -> Path | None:
    """Where the silver-standard GraphRAG index is: ``$AGRAG_SILVER_DIR``, the repository's ``datasets/``, else ``../shared``.

``../shared`` is the shared folder beside the checkout (or beside its parent,
for a worktree one level down); no absolute path of any machine is assumed.

    ``None`` when none of them holds ``entities.parquet``.
    """
    import os

    repo = Path(__file__).resolve().parents[2]
    env = os.environ.get("AGRAG_SILVER_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(repo / "datasets" / SILVER_PATH.relative_to("datasets"))  # bundled with the import
    candidates += [repo.parent / "shared" / SILVER_PATH, repo.parent.parent / "shared" / SILVER_PATH]
    return next((c for c in candidates if (c / "entities.parquet").is_file()), None)


def silver_score(folder: Path | None = None, extractor: Extractor | None = None) -> Score:
    """Score ``extractor`` against the entities of a GraphRAG index (``text_units`` + ``entities`` parquet).

    Each text unit (its ``title:`` line stripped) is one document of one chunk.
    ``folder`` defaults to :func:`silver_dir`.

    Raises
    ------
    KnowledgeGraphError
        The folder does not hold GraphRAG's ``text_units.parquet`` and ``entities.parquet``.
    """
    import polars as pl

    folder = folder or silver_dir()
    if folder is None:
        raise KnowledgeGraphError(
            f"the silver-standard GraphRAG index ({SILVER_PATH}) is not found; set AGRAG_SILVER_DIR to its folder"
        )

    try:
        units = pl.read_parquet(folder / "text_units.parquet", columns=["id", "text"])
        entities = pl.read_parquet(folder / "entities.parquet", columns=["title", "type"])
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise KnowledgeGraphError(
            f"{folder} does not hold a GraphRAG index (text_units.parquet, entities.parquet): {exc}"
        ) from exc
    docs = [
        Document(f"unit-{i:03d}", "", strip_graphrag_title(text), format="text")
        for i, text in enumerate(units["text"].to_list())
    ]
    items = []
    for doc in docs:  # one chunk per text unit: the unit is GraphRAG's chunk
        text = doc.text
        chunk = Chunk(doc.id, version_hash(text), 0, text, 0, len(text), "paragraph", 0, ())
        items.append((chunk, DocumentContext(doc.id, "", {}, text), True))
    graph = build_graph(extract_chunks(items, extractor))
    got = [Extracted(e.name, e.label, e.aliases) for e in graph.entities.values()]
    reference = [Reference(t, k) for t, k in entities.iter_rows()]
    return score(got, reference, GRAPHRAG_TYPES)


def gold_score(
    gold: GoldList,
    documents: Sequence[Document],
    extractor: Extractor | None = None,
    *,
    superseded: Sequence[Document] = (),
) -> Score:
    """Score the graph ``extractor`` builds over ``documents`` against a hand-written gold list."""
    return score(corpus_entities(documents, extractor, superseded=superseded), gold.entities)
