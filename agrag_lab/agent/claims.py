"""Removing what check_citations rejects: per claim (sentence), not per answer.

A claim (a sentence or a line) whose citations are all rejected is dropped; a
claim that keeps at least one valid citation loses only the rejected ones.
Each change is described in a note, and the answer says how many claims it
lost.

Examples
--------
>>> ok, bad = "a@0123456789ab#c1", "b@0123456789ab#c2"
>>> text, notes = drop_invalid(f"Ada wrote Note G [{ok}]. Babbage was born in Paris [{bad}].", {bad: "not_fetched"})
>>> text
'Ada wrote Note G [a@0123456789ab#c1].'
>>> notes[0]
"dropped the claim 'Babbage was born in Paris.': b@0123456789ab#c2 (not_fetched)"
>>> drop_invalid(f"Both [{ok}, {bad}].", {bad: "unknown"})[0]
'Both [a@0123456789ab#c1].'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agrag_lab.agent.text import ends_with_abbreviation
from agrag_lab.evidence.citations import find_citations

__all__ = ["claims", "drop_invalid", "strip_citations"]

_BOUNDARY = re.compile(r"(?<=[.!?\]])[\"'”’)]*[ \t]+(?=[\"'“‘(]*[A-Z0-9])|\n+")


def claims(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each claim: sentences of running text, and lines.

    Citation ids (which contain dots) never split a claim.
    """
    masked = list(text)
    for _, start, end in find_citations(text):
        masked[start:end] = "x" * (end - start)
    plain = "".join(masked)
    out: list[tuple[int, int]] = []
    pos = 0
    for m in _BOUNDARY.finditer(plain):
        piece = plain[pos : m.start()]
        if "\n" not in m.group() and ends_with_abbreviation(piece):
            continue
        if piece.strip():
            out.append((pos, m.start()))
        pos = m.end()
    if plain[pos:].strip():
        out.append((pos, len(text)))
    return out


def _clean(text: str) -> str:
    text = re.sub(r"\[\s*[,;]\s*", "[", text)
    text = re.sub(r"\s*[,;]\s*\]", "]", text)
    text = re.sub(r"([,;])\s*[,;]", r"\1", text)
    text = re.sub(r"\[\s*\]|\(\s*\)", "", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", text).strip()


def strip_citations(text: str, remove: set[str] | None = None) -> str:
    """``text`` without the given citations (all of them when ``remove`` is None)."""
    pieces: list[str] = []
    pos = 0
    for citation, start, end in find_citations(text):
        if remove is None or citation in remove:
            pieces.append(text[pos:start])
            pos = end
    pieces.append(text[pos:])
    return _clean("".join(pieces))


def drop_invalid(answer: str, invalid: Mapping[str, str]) -> tuple[str, list[str]]:
    """Remove rejected citations from ``answer``, dropping claims left without support.

    Parameters
    ----------
    answer : str
        The answer text, citing evidence ids inline.
    invalid : mapping
        Rejected citation (as written) -> reason.

    Returns
    -------
    text : str
        The answer without them (claims joined as they were).
    notes : list of str
        One note per change.
    """
    if not invalid:
        return answer, []
    notes: list[str] = []
    kept: list[str] = []
    separators: list[str] = []
    spans = claims(answer)
    for i, (start, end) in enumerate(spans):
        claim = answer[start:end]
        cited = [c for c, _, _ in find_citations(claim)]
        bad = [c for c in cited if c in invalid]
        if bad and len(bad) == len(cited):
            shown = strip_citations(claim)
            shown = shown if len(shown) <= 160 else shown[:157] + "..."
            reasons = ", ".join(f"{c} ({invalid[c]})" for c in dict.fromkeys(bad))
            notes.append(f"dropped the claim {shown!r}: {reasons}")
            continue
        if bad:
            reasons = ", ".join(f"{c} ({invalid[c]})" for c in dict.fromkeys(bad))
            notes.append(f"removed the rejected citation(s) {reasons} from a claim that keeps its other citations")
            claim = strip_citations(claim, set(bad))
        kept.append(claim)
        following = answer[end : spans[i + 1][0]] if i + 1 < len(spans) else ""
        separators.append("\n" if "\n" in following else " ")
    text = "".join(c + (separators[j] if j < len(kept) - 1 else "") for j, c in enumerate(kept))
    return text.strip(), notes
