"""check_citations and render_citations: a citation is valid only if it was fetched.

Reasons, decided in this order:

``malformed``
    The citation is not a well-formed evidence id.
``fetched`` (valid)
    This session fetched exactly this id (canonical form), which implies it
    was in scope.
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

In an answer text, anything shaped like ``DOCUMENT@VERSION#LOCATOR`` is a
citation (so a mistyped id is reported ``malformed`` rather than missed).
:func:`render_citations` replaces valid ids by ``[1]``, ``[2]``... in order of
first appearance (an id cited twice keeps its number; a bracket group
``[id1, id2]`` becomes ``[1, 2]``), replaces invalid ones by ``[?]``, and
appends a Sources list.

Examples
--------
>>> [c for c, _, _ in find_citations("See [ada@0123456789ab#c1; bad@xyz#c2] and ada@0123456789ab#s0-5.")]
['ada@0123456789ab#c1', 'bad@xyz#c2', 'ada@0123456789ab#s0-5']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from agrag_lab.errors import EvidenceIdError, EvidenceTypeError
from agrag_lab.evidence.access import parse_id, section_at, unreadable_message
from agrag_lab.evidence.builder_ids import aliases_of
from agrag_lab.evidence.results import CitationCheck, CitationReport, Reference, RenderedAnswer
from agrag_lab.importing.aliases import graphrag_references, kind_of

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession

__all__ = ["check_citation", "check_citations", "find_citations", "render_citations"]

_TOKEN = r"[A-Za-z0-9][A-Za-z0-9._~-]*@[^\s\[\](){}<>,;\"'`]*#[^\s\[\](){}<>,;\"'`]*"
_CITATION = re.compile(rf"(?<![\w.~@-]){_TOKEN}")
_GROUP = re.compile(rf"[\[(]\s*(?:{_TOKEN})(?:\s*[,;]\s*(?:{_TOKEN}))*\s*[\])]")
_TRAILING = ".:!?"


def find_citations(text: str) -> list[tuple[str, int, int]]:
    """``(citation, start, end)`` of everything in ``text`` shaped like an evidence id."""
    out = []
    for m in _CITATION.finditer(text):
        token = m.group().rstrip(_TRAILING)
        out.append((token, m.start(), m.start() + len(token)))
    return out


def check_citation(session: EvidenceSession, citation: Any) -> CitationCheck:
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


def _builder_check(session: EvidenceSession, shown: str, citation: Any) -> CitationCheck | None:
    """Check a builder's id (GraphRAG ``source:12``, ``entity:5``, a text unit id...), or ``None`` when it is none.

    A text unit or claim is checked as the passage it is. An entity,
    relationship, community or report is valid when one of its supporting
    passages was fetched in this session (the id shown is that passage).
    """
    aliases = aliases_of(session)
    found = aliases.resolve(citation)
    if found is None:
        if len(aliases) and isinstance(citation, str) and kind_of(citation.partition(":")[0]):
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
        edge = store.graph.edge_index.get((source, target, relation))
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


def _exists(session: EvidenceSession, canonical: str) -> bool:
    eid = parse_id(canonical)
    version = session.readable_version(eid)
    if version is None:
        return False
    if eid.chunk is not None:
        return session.graph.db.chunk(eid.document_id, eid.version, eid.chunk) is not None
    return eid.span is not None and (eid.span[0] < len(version.text) or eid.span[0] == eid.span[1] == len(version.text))


def check_citations(session: EvidenceSession, ids_or_answer: str | Iterable[str]) -> CitationReport:
    """Check a list of ids, or every id-shaped citation in an answer text.

    Parameters
    ----------
    session : EvidenceSession
        Citations are valid only if fetched in this session.
    ids_or_answer : str or iterable of str
        An answer text (citations are found in it), or the ids themselves.

    Returns
    -------
    CitationReport
        One check per citation, in order (repeats included).

    Raises
    ------
    EvidenceTypeError
        ``ids_or_answer`` is neither a text nor an iterable of ids (bytes count as neither).
    """
    if isinstance(ids_or_answer, str):
        found = find_citations(ids_or_answer) + graphrag_references(ids_or_answer)
        cited: list[Any] = [c for c, _, _ in sorted(found, key=lambda f: f[1])]
    elif isinstance(ids_or_answer, (bytes, bytearray)) or not isinstance(ids_or_answer, Iterable):
        raise EvidenceTypeError(
            f"check_citations takes an answer text or a list of evidence ids, not {type(ids_or_answer).__name__}"
            + ("; decode the bytes first" if isinstance(ids_or_answer, (bytes, bytearray)) else "")
        )
    else:
        cited = list(ids_or_answer)
    return CitationReport(tuple(check_citation(session, c) for c in cited))


def _reference(session: EvidenceSession, number: int, canonical: str) -> Reference:
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


def render_citations(session: EvidenceSession, answer: str) -> RenderedAnswer:
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

    def label(citation: str) -> str:
        check = check_citation(session, citation)
        checks.append(check)
        if not check.valid or check.id is None:
            return "?"
        return str(numbers.setdefault(check.id, len(numbers) + 1))

    def replace_group(m: re.Match[str]) -> str:
        inner = [c for c, _, _ in find_citations(m.group())]
        return "[" + ", ".join(label(c) for c in inner) + "]"

    pieces: list[str] = []
    pos = 0
    for m in _GROUP.finditer(answer):
        pieces.append(_replace_bare(answer[pos : m.start()], label))
        pieces.append(replace_group(m))
        pos = m.end()
    pieces.append(_replace_bare(answer[pos:], label))
    body = "".join(pieces)
    references = tuple(_reference(session, n, i) for i, n in numbers.items())
    text = body
    if references:
        text = body.rstrip() + "\n\nSources\n" + "\n".join(r.line() for r in references) + "\n"
    return RenderedAnswer(text, body, references, tuple(checks))


def _replace_bare(text: str, label: Callable[[str], str]) -> str:
    out: list[str] = []
    pos = 0
    for citation, start, end in find_citations(text):
        out.append(text[pos:start])
        out.append(f"[{label(citation)}]")
        pos = end
    out.append(text[pos:])
    return "".join(out)
