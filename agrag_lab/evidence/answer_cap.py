"""The size cap of every tool answer: long texts are cut, the cut is marked, and the rest is one call away.

A tool answer goes to a model whose context is small, or to a client that
holds it in memory: an entity with a 60 MB description must not make a
120 MB answer. :func:`cap_answer` walks an answer (JSON-safe data) and cuts
every string longer than the field cap to ``text[offset : offset + cap]``;
the field cap is :data:`MAX_FIELD_CHARS`, lowered when the answer would
still be over :data:`MAX_ANSWER_CHARS` (never below :data:`MIN_FIELD_CHARS`,
and then whole list items are left off the end, counted). The answer then
carries ``capped``:

``fields``
    Each cut field (the first :data:`LISTED_CUTS`; ``fields_cut`` counts them
    all): its path (``entities[0].description``), its length, and the
    characters shown.
``next_text_offset``
    Call the tool again with the same arguments and ``text_offset`` set to
    this to read the next part of every cut field (a fetched passage can also
    be read in parts by span ids, ``DOC@VER#sSTART-END``).
``items_left_off``
    List items left off the end (path and count), when cutting texts was
    not enough.

An answer within the caps is returned unchanged (``text_offset`` only moves
through texts longer than the field cap).

Examples
--------
>>> capped = cap_answer({"entities": [{"name": "Marley", "description": "x" * 20_000}]})
>>> len(capped["entities"][0]["description"]), capped["capped"]["fields"][0]
(8000, {'path': 'entities[0].description', 'chars': 20000, 'shown': [0, 8000]})
>>> capped["capped"]["next_text_offset"]
8000
>>> cap_answer({"entities": [{"name": "Marley"}]})
{'entities': [{'name': 'Marley'}]}
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["LISTED_CUTS", "MAX_ANSWER_CHARS", "MAX_FIELD_CHARS", "MIN_FIELD_CHARS", "cap_answer"]

#: Longest text one field of a tool answer carries (characters).
MAX_FIELD_CHARS = 8_000
#: Shortest a field is cut to when the whole answer is over :data:`MAX_ANSWER_CHARS`.
MIN_FIELD_CHARS = 500
#: Largest tool answer, as JSON characters.
MAX_ANSWER_CHARS = 200_000
#: Most cut fields an answer lists by path (the rest are counted).
LISTED_CUTS = 20


def _cut(value: Any, path: str, cap: int, offset: int, cuts: list[dict[str, Any]]) -> Any:
    if isinstance(value, str):
        if len(value) <= cap:
            return value
        start = min(offset, len(value))
        end = min(start + cap, len(value))
        cuts.append({"path": path, "chars": len(value), "shown": [start, end]})
        return value[start:end]
    if isinstance(value, dict):
        return {k: _cut(v, f"{path}.{k}" if path else str(k), cap, offset, cuts) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cut(v, f"{path}[{i}]", cap, offset, cuts) for i, v in enumerate(value)]
    return value


def _size(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False, default=str))


def _drop_tail(data: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    """Leave items off the end of the longest lists until ``data`` fits ``limit``; what was left off."""
    dropped: dict[str, int] = {}
    size = _size(data)
    while size > limit:
        lists = [(k, v) for k, v in data.items() if isinstance(v, list) and v and k != "capped"]
        if not lists:
            break
        key, longest = max(lists, key=lambda kv: len(kv[1]))
        size -= _size(longest.pop()) + 2
        dropped[key] = dropped.get(key, 0) + 1
    return [{"path": k, "count": n} for k, n in dropped.items()]


def cap_answer(
    data: dict[str, Any], *, offset: int = 0, field_chars: int = MAX_FIELD_CHARS, answer_chars: int = MAX_ANSWER_CHARS,
) -> dict[str, Any]:
    """``data`` with every text over the field cap cut and the cut marked (see the module).

    Parameters
    ----------
    data : dict
        A tool answer (JSON-safe).
    offset : int
        Where each cut text starts (``text_offset`` of the call); 0 for the start.
    field_chars, answer_chars : int
        The caps (default :data:`MAX_FIELD_CHARS`, :data:`MAX_ANSWER_CHARS`).
    """
    cap = field_chars
    while True:
        cuts: list[dict[str, Any]] = []
        out: dict[str, Any] = _cut(data, "", cap, offset, cuts)
        if _size(out) <= answer_chars or cap <= MIN_FIELD_CHARS:
            break
        cap = max(MIN_FIELD_CHARS, cap // 2)
    if not cuts and _size(out) <= answer_chars:
        return data
    marker: dict[str, Any] = {"fields": cuts[:LISTED_CUTS], "fields_cut": len(cuts), "field_chars": cap}
    if any(c["shown"][1] < c["chars"] for c in cuts):
        marker["next_text_offset"] = offset + cap
        marker["how"] = (f"texts longer than {cap} characters are cut; call the tool again with the same arguments and "
                         f"text_offset={offset + cap} to read the next part")
    out["capped"] = marker
    left_off = _drop_tail(out, answer_chars - 200)  # room for the count of what was left off
    if left_off:
        marker["items_left_off"] = left_off
    return out
