"""Result types of the evidence functions: frozen dataclasses with ``to_dict()``.

Every result converts to JSON-safe data with ``to_dict()`` (tuples become
lists, nested results dicts), which is what the MCP server returns.

Examples
--------
>>> loc = Location("ada", "0123456789ab", ("Ada Lovelace", "Life"), 0, 42, 0)
>>> loc.to_dict()["heading_path"]
['Ada Lovelace', 'Life']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agrag_lab.kg.claims import Claim
from agrag_lab.serialize import to_data

Mode = Literal["keyword", "vector", "hybrid"]
SearchStatus = Literal["ok", "partial", "truncated"]
LegStatus = Literal["ok", "failed"]
VersionStatus = Literal["current", "superseded"]
FetchReason = Literal["malformed", "unknown", "out_of_range"]
Direction = Literal["parent", "children", "siblings", "prev", "next", "table"]
NodeKind = Literal["chunk", "section", "row", "span"]
EdgeKind = Literal["assertion", "path"]
CitationReason = Literal["fetched", "not_fetched", "out_of_scope", "malformed", "unknown", "unresolved", "unsupported"]
#: How well a cited passage supports its claim (:mod:`agrag_lab.evidence.support`).
SupportVerdict = Literal["supported", "weak", "unsupported"]

__all__ = [
    "Cell",
    "CitationCheck",
    "CitationReason",
    "CitationReport",
    "DiscoverResult",
    "DocumentEntry",
    "DocumentList",
    "EntitiesResult",
    "EntityHit",
    "EntityRef",
    "ExploreEdge",
    "ExploreResult",
    "FetchError",
    "FetchReason",
    "FetchResult",
    "FetchedText",
    "Hit",
    "Leg",
    "Location",
    "Mode",
    "NavItem",
    "Navigation",
    "Passage",
    "RankedResult",
    "Reached",
    "RecipeMethod",
    "RecipeSearchResult",
    "Reference",
    "RenderedAnswer",
    "SearchStatus",
    "Step",
    "Support",
    "SupportVerdict",
    "VersionStatus",
]


class _ToDict:
    """Mixin: ``to_dict()`` returns a JSON-safe copy."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """This result as JSON-safe data (dicts, lists, strings, numbers, None)."""
        data: dict[str, Any] = to_data(self)
        return data


# -- discover -----------------------------------------------------------------------


@dataclass(frozen=True)
class Location(_ToDict):
    """Where a passage is: document, version, heading path, character offsets.

    ``start``/``end`` are offsets in the version text (end exclusive);
    ``chunk`` is the chunk number, or ``None`` for a span.
    """

    document_id: str
    version: str
    heading_path: tuple[str, ...]
    start: int
    end: int
    chunk: int | None = None


@dataclass(frozen=True)
class Hit(_ToDict):
    """One passage found by :func:`~agrag_lab.evidence.discover`.

    ``score`` is the cosine similarity (vector mode) or the fused RRF score
    (hybrid mode); keyword mode gives ``None`` because a BM25 score carries
    corpus-wide term statistics, i.e. information from outside the scope.
    """

    id: str
    rank: int
    title: str
    snippet: str
    location: Location
    kind: str
    score: float | None = None
    keyword_rank: int | None = None
    vector_rank: int | None = None
    #: The passage as a person tells it apart: ``title > heading #c3`` (:func:`agrag_lab.names.display_name`).
    name: str = ""


@dataclass(frozen=True)
class Leg(_ToDict):
    """One search leg: its status, how many candidates it gave, why it failed."""

    name: str
    status: LegStatus
    candidates: int = 0
    error: str | None = None


@dataclass(frozen=True)
class DiscoverResult(_ToDict):
    """Hits of a discover call and the status of the search.

    ``status`` is ``partial`` when a leg failed (``legs`` names it and why),
    else ``truncated`` when more candidates were found than ``limit``, else
    ``ok``. ``truncated`` is also given on its own.
    """

    query: str
    mode: Mode
    limit: int
    status: SearchStatus
    hits: tuple[Hit, ...]
    legs: tuple[Leg, ...]
    truncated: bool
    message: str

    @property
    def ids(self) -> tuple[str, ...]:
        """The evidence ids of the hits, best first."""
        return tuple(h.id for h in self.hits)


# -- fetch ------------------------------------------------------------------------


@dataclass(frozen=True)
class FetchedText(_ToDict):
    """The exact text behind one id.

    ``status`` is ``partial`` when a span ran past the end of its version
    (``text`` is what exists, ``location.end`` where it stops).
    ``version_status`` says whether the id's version is still the current
    one; ``removed`` whether its document had been removed from search when
    the session opened (its scope is fixed then too).
    """

    id: str
    text: str
    title: str
    location: Location
    version_status: VersionStatus
    removed: bool
    requested: tuple[int, int] | None = None
    status: Literal["ok", "partial"] = "ok"
    ok: bool = True
    #: The passage as a person tells it apart: ``title > heading #c3`` (:func:`agrag_lab.names.display_name`).
    name: str = ""


@dataclass(frozen=True)
class FetchError(_ToDict):
    """Why one id gave no text: ``malformed``, ``unknown`` or ``out_of_range``.

    ``unknown`` covers ids that do not exist *and* ids outside the session's
    scope, with the same message, so an error never confirms that something
    exists elsewhere.
    """

    id: str
    reason: FetchReason
    message: str
    status: Literal["error"] = "error"
    ok: bool = False


@dataclass(frozen=True)
class FetchResult(_ToDict):
    """One entry per requested id, in request order."""

    items: tuple[FetchedText | FetchError, ...]

    @property
    def texts(self) -> tuple[FetchedText, ...]:
        """The entries that returned text."""
        return tuple(i for i in self.items if isinstance(i, FetchedText))

    @property
    def errors(self) -> tuple[FetchError, ...]:
        """The entries that returned an error."""
        return tuple(i for i in self.items if isinstance(i, FetchError))

    def __getitem__(self, index: int) -> FetchedText | FetchError:
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)


# -- navigate ---------------------------------------------------------------------


@dataclass(frozen=True)
class Cell(_ToDict):
    """One table cell: its column header, value and span id (when locatable)."""

    header: str
    value: str
    id: str | None = None


@dataclass(frozen=True)
class NavItem(_ToDict):
    """A passage reached by :func:`~agrag_lab.evidence.navigate`.

    ``kind`` is ``chunk``, ``section`` (a span id covering a section, heading
    included) or ``row`` (a span id covering one table row, with its cells).
    ``focus`` marks, for ``to="table"``, the rows the starting id covers.
    """

    id: str
    kind: NodeKind
    title: str
    snippet: str
    location: Location
    cells: tuple[Cell, ...] = ()
    focus: bool = False


@dataclass(frozen=True)
class Navigation(_ToDict):
    """Where ``navigate(id, to)`` led: the items, and for tables the header."""

    id: str
    to: Direction
    items: tuple[NavItem, ...]
    header: tuple[str, ...] = ()
    note: str | None = None

    @property
    def ids(self) -> tuple[str, ...]:
        """The ids of the items, in order."""
        return tuple(i.id for i in self.items)


# -- entities ---------------------------------------------------------------------


@dataclass(frozen=True)
class Passage(_ToDict):
    """A supporting passage: its evidence id and a snippet."""

    id: str
    snippet: str


@dataclass(frozen=True)
class EntityHit(_ToDict):
    """An entity found by name and/or embedding, with up to three passages in scope."""

    id: str
    name: str
    label: str
    description: str
    aliases: tuple[str, ...]
    rank: int
    score: float
    passages: tuple[Passage, ...]
    keyword_rank: int | None = None
    vector_rank: int | None = None
    claims: tuple[Claim, ...] = ()


@dataclass(frozen=True)
class EntitiesResult(_ToDict):
    """Entities of a find_entities call, with the status of each leg."""

    query: str
    limit: int
    status: SearchStatus
    entities: tuple[EntityHit, ...]
    legs: tuple[Leg, ...]
    truncated: bool
    message: str


@dataclass(frozen=True)
class EntityRef(_ToDict):
    """An entity named in an exploration."""

    id: str
    name: str
    label: str


@dataclass(frozen=True)
class Support(_ToDict):
    """A passage in scope that states a relation: its id and sentence."""

    id: str
    sentence: str


@dataclass(frozen=True)
class Step(_ToDict):
    """One hop of a path: ``source -[type]-> target`` as walked."""

    source: str
    type: str
    target: str


@dataclass(frozen=True)
class ExploreEdge(_ToDict):
    """A relation walked by :func:`~agrag_lab.evidence.explore`.

    ``kind`` is ``assertion`` when a passage in scope supports it (``support``
    gives the ids and sentences), else ``path``: a connection with no visible
    supporting passage. ``source``/``target`` keep the relation's stored
    direction; ``hop`` is the distance of its far end from the start.
    """

    source: EntityRef
    type: str
    target: EntityRef
    hop: int
    kind: EdgeKind
    support: tuple[Support, ...] = ()


@dataclass(frozen=True)
class Reached(_ToDict):
    """An entity reached by the walk, at ``hop``, by ``path`` from the start."""

    entity: EntityRef
    hop: int
    path: tuple[Step, ...]


@dataclass(frozen=True)
class ExploreResult(_ToDict):
    """The start entity, the edges walked (one per reached entity), and the reached entities."""

    entity: EntityRef
    depth: int
    edges: tuple[ExploreEdge, ...]
    reached: tuple[Reached, ...]
    truncated: bool
    claims: tuple[Claim, ...] = ()


# -- citations --------------------------------------------------------------------


@dataclass(frozen=True)
class CitationCheck(_ToDict):
    """One citation: valid only if its id was fetched in this session and its passage supports its claim.

    ``reason`` is ``fetched`` for a valid citation, else ``not_fetched``,
    ``out_of_scope``, ``malformed``, ``unknown``, ``unresolved`` (text that
    looks like a citation but names nothing checkable; ``id`` is ``None``) or
    ``unsupported`` (fetched, but the passage does not state the claim);
    see :mod:`agrag_lab.evidence.citations` for when each is given.
    ``support`` is the verdict on a fetched citation of an answer text
    (``supported``, ``weak`` or ``unsupported``; ``None`` when there is no
    claim to compare: ids checked as a list), ``claim`` the text it was
    compared with and ``support_reason`` why.
    """

    citation: str
    id: str | None
    valid: bool
    reason: CitationReason
    message: str
    support: SupportVerdict | None = None
    claim: str = ""
    support_reason: str = ""


@dataclass(frozen=True)
class CitationReport(_ToDict):
    """Every citation checked, in order of appearance.

    ``all_valid`` says whether there is at least one citation and every one
    is valid: an answer that cites nothing checkable is not valid. ``reason``
    says why not (``"no citation found"``, or how many citations are invalid
    and how many of those are unresolved look-alikes); ``None`` when valid.
    """

    checks: tuple[CitationCheck, ...]
    all_valid: bool = field(init=False)
    reason: str | None = field(init=False)

    def __post_init__(self) -> None:
        invalid = [c for c in self.checks if not c.valid]
        object.__setattr__(self, "all_valid", bool(self.checks) and not invalid)
        reason: str | None = None
        if not self.checks:
            reason = "no citation found"
        elif invalid:
            unresolved = sum(1 for c in invalid if c.reason == "unresolved")
            reason = f"{len(invalid)} of {len(self.checks)} citation(s) invalid" + (
                f", {unresolved} of them unresolved (not an evidence id nor an id the index knows)" if unresolved else ""
            )
        object.__setattr__(self, "reason", reason)

    @property
    def unresolved(self) -> tuple[CitationCheck, ...]:
        """The look-alikes: text shaped like a citation that names nothing checkable."""
        return tuple(c for c in self.checks if c.reason == "unresolved")

    @property
    def valid(self) -> tuple[CitationCheck, ...]:
        """The valid citations."""
        return tuple(c for c in self.checks if c.valid)

    @property
    def invalid(self) -> tuple[CitationCheck, ...]:
        """The invalid citations."""
        return tuple(c for c in self.checks if not c.valid)


@dataclass(frozen=True)
class Reference(_ToDict):
    """One numbered source of a rendered answer."""

    number: int
    id: str
    title: str
    heading_path: tuple[str, ...]
    version: str
    superseded: bool

    def line(self) -> str:
        """The Sources line, e.g. ``[1] Title, Section, version 0123456789ab``."""
        parts = [self.title]
        heads = [h for h in self.heading_path if h != self.title]
        if heads:
            parts.append(" > ".join(heads))
        version = f"version {self.version}" + (" (superseded)" if self.superseded else "")
        parts.append(version)
        return f"[{self.number}] " + ", ".join(parts) + f" <{self.id}>"


@dataclass(frozen=True)
class RenderedAnswer(_ToDict):
    """An answer with numbered references and a Sources list.

    ``body`` is the answer with valid ids replaced by ``[n]`` and invalid
    ones by ``[?]``; ``text`` is ``body`` followed by the Sources list.
    """

    text: str
    body: str
    references: tuple[Reference, ...]
    checks: tuple[CitationCheck, ...]

    @property
    def invalid(self) -> tuple[CitationCheck, ...]:
        """The citations that were not rendered."""
        return tuple(c for c in self.checks if not c.valid)

    def __str__(self) -> str:
        return self.text


# -- recipe search -------------------------------------------------------------------


@dataclass(frozen=True)
class RankedResult(_ToDict):
    """One ranked result of a recipe search in scope, with why it ranks there.

    ``title``, ``text`` and ``passages`` are what the scope shows of the
    result (an entity's aliases, description and passages from documents in
    scope only); ``text`` is cut at 600 characters. ``passages`` are the
    evidence ids behind the result (fetch them to cite). ``explanation`` says
    which methods found it at which rank, its fusion terms, walk path,
    re-rank move and the cut.
    """

    rank: int
    id: str
    kind: str
    score: float
    title: str
    text: str
    document_id: str | None
    heading_path: tuple[str, ...]
    label: str | None
    passages: tuple[str, ...]
    explanation: str
    #: The result as a person tells it apart (a passage: ``title > heading #c3``; see :mod:`agrag_lab.names`).
    name: str = ""


@dataclass(frozen=True)
class RecipeMethod(_ToDict):
    """How one search method of the recipe ran (``status``, wall ``seconds``, ``error``)."""

    name: str
    status: str
    seconds: float
    error: str | None


@dataclass(frozen=True)
class RecipeSearchResult(_ToDict):
    """The results of one recipe run in scope, explained.

    ``status`` is ``partial`` when a method or one of its legs failed (the
    query could not be embedded, the vector store is unreachable) and the
    others answered; ``methods`` names which and why. ``warnings`` are the
    run's (the ledger's ``trace.warnings``): the index is mid-sync, or the
    recipe had nothing to read (no community report for THEMATIC).
    """

    query: str
    recipe: str
    seconds: float
    results: tuple[RankedResult, ...]
    methods: tuple[RecipeMethod, ...]
    status: Literal["ok", "partial"] = "ok"
    warnings: tuple[str, ...] = ()


# -- list_documents ------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentEntry(_ToDict):
    """One document in scope: its id, title, current version and how many chunks that version has."""

    id: str
    title: str
    version: str
    chunks: int


@dataclass(frozen=True)
class DocumentList(_ToDict):
    """The searchable documents in scope, by id; ``total`` counts them all, ``truncated`` says the limit cut."""

    documents: tuple[DocumentEntry, ...]
    total: int
    truncated: bool
