"""check_citations and render_citations: a citation is valid only if it was fetched and supports its claim.

Reasons, decided in this order:

``malformed``
    The citation is not a well-formed evidence id.
``fetched`` (valid)
    This session fetched exactly this id (canonical form), which implies it
    was in scope; in an answer text, its passage also supports the claim the
    citation is attached to, or weakly (``support`` says which and why).
``unsupported``
    In an answer text: fetched, but the passage does not support the claim
    (:func:`~agrag_lab.evidence.support.judge_support`: too few of its
    content words, a name or number missing, a negation reversed). The claim
    of each citation is found by :func:`~agrag_lab.evidence.cited_claims.cited_claims`.
    Ids checked as a list have no claim: only fetching is checked.
``out_of_scope``
    The session's scope lists document ids and the cited document is not
    among them. This is decided from the id text and the caller's own list
    alone, without looking anything up, so it says nothing about whether the
    id exists.
``not_fetched``
    The id names a passage the session can read, but it was not fetched.
``unknown``
    Anything else: the id does not exist, or its document is outside the
    scope for any other reason (a ``where`` predicate, or a scope without a
    document list). The message is the same in both cases, so a check never
    confirms that something exists outside the scope.
``unresolved``
    Text that looks like a citation (``[1]``, ``[Babbage 1864]``, ``[^2]``)
    but is not an evidence id nor an id the index knows: nothing can be
    checked, so it is not valid.

A citation is checked or it is not a citation: an answer with no citation at
all is **not** valid (:attr:`CitationReport.reason` says ``"no citation
found"``), and one unresolved look-alike makes ``all_valid`` false.

In an answer text, citations are found by the :data:`RECOGNISERS`, in order:
a span one recogniser claimed is not looked at by the later ones. Anything
shaped like ``DOCUMENT@VERSION#LOCATOR`` is an id (so a mistyped id is
reported ``malformed`` rather than missed); then any other ``[...]`` that is
not a Markdown link is a look-alike. :func:`render_citations` replaces valid
ids by ``[1]``, ``[2]``... in order of first appearance (an id cited twice
keeps its number; a bracket group ``[id1, id2]`` becomes ``[1, 2]``), replaces
invalid ones and look-alikes by ``[?]`` (a bracketed number is never drawn as
if it were a reference), and appends a Sources list.

Examples
--------
>>> [c for c, _, _ in find_citations("See [ada@0123456789ab#c1; bad@xyz#c2] and ada@0123456789ab#s0-5.")]
['ada@0123456789ab#c1', 'bad@xyz#c2', 'ada@0123456789ab#s0-5']
>>> [(f.citation, f.kind) for f in recognise_citations("Ada wrote Note G [1] [ada@0123456789ab#c1], see [a](http://x).")]
[('[1]', 'look_alike'), ('ada@0123456789ab#c1', 'id')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Literal, Protocol

from agrag_lab.errors import EvidenceIdError, EvidenceTypeError
from agrag_lab.evidence.access import parse_id, section_at, unreadable_message
from agrag_lab.evidence.builder_ids import aliases_of, builder_shaped
from agrag_lab.evidence.cited_claims import cited_claims
from agrag_lab.evidence.navigation import Navigating
from agrag_lab.evidence.results import CitationCheck, CitationReport, Reference, RenderedAnswer
from agrag_lab.evidence.support import Support, SupportJudge, judge_support
from agrag_lab.importing.aliases import graphrag_references

__all__ = [
    "RECOGNISERS",
    "Found",
    "bracketed_builder_ids",
    "check_citation",
    "check_citations",
    "find_citations",
    "look_alikes",
    "recognise_citations",
    "render_citations",
]

_TOKEN = r"[A-Za-z0-9][A-Za-z0-9._~-]*@[^\s\[\](){}<>,;\"'`]*#[^\s\[\](){}<>,;\"'`]*"
_CITATION = re.compile(rf"(?<![\w.~@-]){_TOKEN}")
_GROUP = re.compile(rf"[\[(]\s*(?:{_TOKEN})(?:\s*[,;]\s*(?:{_TOKEN}))*\s*[\])]")
_TRAILING = ".:!?"
#: Square brackets around something that is not a Markdown link (no "(" right after).
_BRACKETS = re.compile(r"\[([^\[\]\n]{1,200})\](?!\()")
_UNRESOLVED = (
    "looks like a citation but is not an evidence id (DOCUMENT@VERSION#cN) nor an id the index knows, so "
    "nothing can be checked; cite the id of a passage you fetched in this session"
)
NO_CITATION = "no citation found"
#: What stands between two citations of one group: ``[a, b]``, ``[a][b]``, ``[a]; [b]``.
_SIDE_BY_SIDE = re.compile(r"[\s,;\[\]()]*")

CitationKind = Literal["id", "look_alike"]


class Citing(Navigating, Protocol):
    """What the citation check reads of its session: navigation's reads, and which ids were fetched."""

    def was_fetched(self, canonical_id: str) -> bool:
        """Whether this (canonical) id was fetched in this session."""


@dataclass(frozen=True)
class Found:
    """One citation found in an answer: as written, where, and which recogniser found it."""

    citation: str
    start: int
    end: int
    kind: CitationKind


def find_citations(text: str) -> list[tuple[str, int, int]]:
    """``(citation, start, end)`` of everything in ``text`` shaped like an evidence id."""
    out = []
    for m in _CITATION.finditer(text):
        token = m.group().rstrip(_TRAILING)
        out.append((token, m.start(), m.start() + len(token)))
    return out


def look_alikes(text: str) -> list[tuple[str, int, int]]:
    """``(text, start, end)`` of every ``[...]`` that is not a Markdown link (``[text](url)``).

    Run after :func:`find_citations` by :func:`recognise_citations`, so a
    bracket that holds an evidence id is an id, not a look-alike.

    Examples
    --------
    >>> look_alikes("Note G [1], [Babbage 1864] and [the memoir](http://x).")
    [('[1]', 7, 10), ('[Babbage 1864]', 12, 26)]
    """
    return [(m.group(), m.start(), m.end()) for m in _BRACKETS.finditer(text)]


def bracketed_builder_ids(text: str) -> list[tuple[str, int, int]]:
    """``(id, start, end)`` of every ``[...]`` holding builder ids (``[chunk-1a2b3c4d]``, ``[source:3, source:4]``);
    the span of a lone id covers its brackets, so a rendered answer shows ``[1]``, not ``[[1]]``.

    Examples
    --------
    >>> bracketed_builder_ids("Ishmael [chunk-0123456789abcdef] and [1].")
    [('chunk-0123456789abcdef', 8, 32)]
    """
    out: list[tuple[str, int, int]] = []
    for m in _BRACKETS.finditer(text):
        parts = [(p.group(), m.start(1) + p.start()) for p in re.finditer(r"[^,;\s]+", m.group(1))]
        if not parts or not all(builder_shaped(p) for p, _ in parts):
            continue
        if len(parts) == 1:
            out.append((parts[0][0], m.start(), m.end()))
        else:
            out.extend((p, at, at + len(p)) for p, at in parts)
    return out


#: The recognisers of citations in an answer text, in order: ``(kind, find)``
#: where ``find(text)`` gives ``(citation, start, end)``. A span an earlier
#: recogniser claimed is skipped by the later ones, so a specific form (an
#: evidence id, a builder's reference style) goes before the catch-all
#: look-alike.
RECOGNISERS: list[tuple[CitationKind, Callable[[str], list[tuple[str, int, int]]]]] = [
    ("id", find_citations),
    # GraphRAG's reference groups, [Data: Sources (12); Entities (5, 7)]: builder ids (source:12, entity:5)
    ("id", graphrag_references),
    # LightRAG's chunk ids and other builder ids in brackets, [chunk-1a2b...]: resolved through the aliases
    ("id", bracketed_builder_ids),
    ("look_alike", look_alikes),
]


def recognise_citations(text: str) -> list[Found]:
    """Every citation of ``text`` by the :data:`RECOGNISERS`, in order of appearance.

    A look-alike bracket that holds a claimed span (``[see ada@0123456789ab#c1]``)
    is not reported again: the id in it is the citation.
    """
    claimed: list[tuple[int, int]] = []
    out: list[Found] = []
    for kind, find in RECOGNISERS:
        for citation, start, end in find(text):
            if any(start < e and s < end for s, e in claimed):
                continue
            out.append(Found(citation, start, end, kind))
        claimed.extend((f.start, f.end) for f in out if f.kind == kind)
    return sorted(out, key=lambda f: f.start)


def _unresolved(citation: str) -> CitationCheck:
    return CitationCheck(citation, None, False, "unresolved", _UNRESOLVED)


def _check_found(session: Citing, found: Found) -> CitationCheck:
    if found.kind == "look_alike":
        return _unresolved(found.citation)
    return check_citation(session, found.citation)


def _supported(check: CitationCheck, claim: str, support: Support) -> CitationCheck:
    """``check`` (valid) with the verdict on its claim; an unsupported claim makes it invalid."""
    if support.verdict == "unsupported":
        return replace(
            check, valid=False, reason="unsupported", support="unsupported", claim=claim, support_reason=support.reason,
            message=f"{check.id} was fetched but does not support the claim {claim[:160]!r}: {support.reason}; "
            "cite a passage that states it, or change the claim to what the passage says",
        )
    return replace(check, support=support.verdict, claim=claim, support_reason=support.reason)


def _with_support(
    session: Citing, checks: list[CitationCheck], claim: str, judge: SupportJudge = judge_support,
) -> list[CitationCheck]:
    """The valid ``checks`` of one claim judged: a group of citations (``[a, b]``) supports its claim together,
    and each member must share some of the claim's words."""
    texts = {c.id: _passage_text(session, c.id) for c in checks if c.valid and c.id is not None}
    readable = [t for t in texts.values() if t is not None]
    if not claim or not readable:
        return checks
    together = judge(claim, "\n\n".join(readable))
    out = []
    for check in checks:
        text = texts.get(check.id) if check.valid and check.id is not None else None
        if text is None:
            out.append(check)
            continue
        own = judge(claim, text) if len(readable) > 1 else together
        # in a group, a member that shares no word with the claim adds nothing to it: judged alone
        out.append(_supported(check, claim, together if own.coverage > 0 else own))
    return out


def _passage_text(session: Citing, canonical: str) -> str | None:
    """The text of a readable passage (chunk or span), or ``None``."""
    eid = parse_id(canonical)
    if eid.chunk is not None:
        chunk = session.readable_chunk(eid)
        return chunk.text if chunk is not None else None
    version = session.readable_version(eid)
    if version is None or eid.span is None:
        return None
    return version.text[eid.span[0] : eid.span[1]]


def _checks_of(session: Citing, answer: str, found: list[Found]) -> list[CitationCheck]:
    """Each found citation checked, and judged against the claim it is attached to (citations side by side,
    ``[a, b]``, share their claim and are judged together)."""
    claims = cited_claims(answer, [(f.start, f.end) for f in found])
    checks = [_check_found(session, f) for f in found]
    out: list[CitationCheck] = []
    start = 0
    for n in range(1, len(found) + 1):
        if n < len(found) and _SIDE_BY_SIDE.fullmatch(answer[found[n - 1].end : found[n].start]):
            continue  # side by side: the run shares the claim of its first citation
        out += _with_support(session, checks[start:n], claims[start])
        start = n
    return out


def check_citation(session: Citing, citation: Any) -> CitationCheck:
    """Check one citation (see the module for the reasons)."""
    shown = citation if isinstance(citation, str) else repr(citation)
    try:
        eid = parse_id(citation)
    except EvidenceIdError as exc:
        builder = _builder_check(session, shown, citation)  # a builder's id (GraphRAG references)
        return builder if builder is not None else CitationCheck(shown, None, False, "malformed", str(exc))
    canonical = str(eid)
    if session.was_fetched(canonical):
        return CitationCheck(shown, canonical, True, "fetched", "fetched in this session")
    listed = session.resolved.listed
    if listed is not None and eid.document_id not in listed:
        return CitationCheck(
            shown,
            canonical,
            False,
            "out_of_scope",
            f"document {eid.document_id!r} is not among the documents of this session's scope; "
            "cite only passages fetched in this session",
        )
    if _exists(session, canonical):
        return CitationCheck(
            shown,
            canonical,
            False,
            "not_fetched",
            f"{canonical} was not fetched in this session; fetch it and read it before citing it",
        )
    return CitationCheck(shown, canonical, False, "unknown", unreadable_message(session, shown))


def _builder_check(session: Citing, shown: str, citation: Any) -> CitationCheck | None:
    """Check a builder's id (GraphRAG ``source:12``, ``entity:5``, a text unit id...), or ``None`` when it is none.

    A text unit or claim is checked as the passage it is. An entity,
    relationship, community or report is valid when one of its supporting
    passages was fetched in this session (the id shown is that passage).
    """
    aliases = aliases_of(session)
    found = aliases.resolve(citation)
    if found is None:
        if builder_shaped(citation):  # a builder's id form (source:99, chunk-deadbeef) naming nothing here
            return CitationCheck(shown, None, False, "unknown", unreadable_message(session, shown))
        return None
    kind, ours = found
    if kind in ("source", "claim"):
        check = check_citation(session, ours)
        return CitationCheck(shown, check.id, check.valid, check.reason, check.message)
    store, scope = session.graph.graph_store, session.graph_scope()
    if kind == "entity":
        entity = store.entity(ours, scope)
        chunks = entity.chunk_ids if entity is not None else None
    elif kind == "relationship":
        source, target, relation = ours.split("|")
        # through the store protocol (the graph may live in a server): the stored relation, unscoped
        edge = next((e for e in store.neighbours(source, {relation}, "out") if e.target == target), None)
        seen = store.entity(source, scope) is not None and store.entity(target, scope) is not None
        chunks = edge.chunk_ids if edge is not None and seen else None
    else:
        report = next((r for r in store.reports() if r.community_id == ours), None)
        chunks = report.chunk_ids if report is not None else None
    readable = [c for c in chunks or () if _exists(session, c)] if chunks is not None else []
    if not readable:
        return CitationCheck(shown, None, False, "unknown", unreadable_message(session, shown))
    fetched = next((c for c in readable if session.was_fetched(c)), None)
    if fetched is not None:
        return CitationCheck(shown, fetched, True, "fetched", f"{kind} {shown}: its passage {fetched} was fetched in this session")
    return CitationCheck(
        shown, readable[0], False, "not_fetched",
        f"{kind} {shown} was cited but none of its passages was fetched in this session; fetch one "
        f"({', '.join(readable[:3])}) and read it before citing it",
    )


def _exists(session: Citing, canonical: str) -> bool:
    eid = parse_id(canonical)
    version = session.readable_version(eid)
    if version is None:
        return False
    if eid.chunk is not None:
        return session.graph.db.chunk(eid.document_id, eid.version, eid.chunk) is not None
    return eid.span is not None and (eid.span[0] < len(version.text) or eid.span[0] == eid.span[1] == len(version.text))


def check_citations(session: Citing, ids_or_answer: str | Iterable[str]) -> CitationReport:
    """Check a list of ids, or every id-shaped citation in an answer text.

    Parameters
    ----------
    session : Citing
        Citations are valid only if fetched in this session.
    ids_or_answer : str or iterable of str
        An answer text (citations are found in it), or the ids themselves.

    Returns
    -------
    CitationReport
        One check per citation, in order (repeats included); not valid when
        there is none (``reason`` ``"no citation found"``) or when any text
        that looks like a citation resolves to nothing (``unresolved``).

    Raises
    ------
    EvidenceTypeError
        ``ids_or_answer`` is neither a text nor an iterable of ids (bytes count as neither).
    """
    if isinstance(ids_or_answer, str):
        return CitationReport(tuple(_checks_of(session, ids_or_answer, recognise_citations(ids_or_answer))))
    if isinstance(ids_or_answer, (bytes, bytearray)) or not isinstance(ids_or_answer, Iterable):
        raise EvidenceTypeError(
            f"check_citations takes an answer text or a list of evidence ids, not {type(ids_or_answer).__name__}"
            + ("; decode the bytes first" if isinstance(ids_or_answer, (bytes, bytearray)) else "")
        )
    return CitationReport(tuple(check_citation(session, c) for c in ids_or_answer))


def _reference(session: Citing, number: int, canonical: str) -> Reference:
    eid = parse_id(canonical)
    version = session.readable_version(eid)
    title = version.title if version is not None else eid.document_id
    superseded = bool(version is not None and version.superseded)
    heading_path: tuple[str, ...] = ()
    if eid.chunk is not None:
        chunk = session.readable_chunk(eid)
        heading_path = chunk.heading_path if chunk is not None else ()
    elif eid.span is not None and version is not None:
        end = min(eid.span[1], len(version.text))
        section = section_at(session.layout(version).sections, eid.span[0], end)
        heading_path = section.heading_path if section is not None else ()
    return Reference(number, canonical, title, heading_path, eid.version, superseded)


def render_citations(session: Citing, answer: str) -> RenderedAnswer:
    """Number the valid citations of ``answer`` and append a Sources list.

    Returns
    -------
    RenderedAnswer
        ``body`` with ``[n]`` for valid ids and ``[?]`` for invalid ones,
        ``text`` = body + Sources, the references, and every check.
    """
    if not isinstance(answer, str):
        raise EvidenceTypeError(f"answer must be a string, not {type(answer).__name__}")
    checks: list[CitationCheck] = []
    numbers: dict[str, int] = {}
    recognised = recognise_citations(answer)
    by_start = {f.start: c for f, c in zip(recognised, _checks_of(session, answer, recognised), strict=True)}

    def label(found: Found) -> str:
        check = by_start.get(found.start) or _check_found(session, found)
        checks.append(check)
        if not check.valid or check.id is None:
            return "?"
        return str(numbers.setdefault(check.id, len(numbers) + 1))

    def replace_group(m: re.Match[str]) -> str:
        inner = [Found(c, m.start() + s, m.start() + e, "id") for c, s, e in find_citations(m.group())]
        return "[" + ", ".join(label(f) for f in inner) + "]"

    groups = [(m.start(), m.end(), m) for m in _GROUP.finditer(answer)]
    units: list[tuple[int, int, Callable[[], str]]] = [(s, e, partial(replace_group, m)) for s, e, m in groups]
    for found in recognised:
        if any(s <= found.start < e for s, e, _ in groups):
            continue
        units.append((found.start, found.end, partial(_bare, label, found)))
    pieces: list[str] = []
    pos = 0
    for start, end, make in sorted(units, key=lambda u: u[0]):
        pieces.append(answer[pos:start])
        pieces.append(make())
        pos = end
    pieces.append(answer[pos:])
    body = "".join(pieces)
    references = tuple(_reference(session, n, i) for i, n in numbers.items())
    text = body
    if references:
        text = body.rstrip() + "\n\nSources\n" + "\n".join(r.line() for r in references) + "\n"
    return RenderedAnswer(text, body, references, tuple(checks))


def _bare(label: Callable[[Found], str], found: Found) -> str:
    return f"[{label(found)}]"
