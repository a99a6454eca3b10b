"""A deterministic stand-in for the LLM the peers call while indexing and querying.

It answers each peer prompt in the exact format that peer's parser reads:

- GraphRAG 3.3.0 ``extract_graph`` (``("entity"<|>NAME<|>TYPE<|>DESCRIPTION)`` records
  joined by ``##``, ending ``<|COMPLETE|>``), its gleaning prompts (nothing more; ``N``),
  ``summarize_descriptions`` (the descriptions joined) and ``community_report``
  (the JSON of ``CommunityReportResponse``, findings citing ``[Data: Entities (..);
  Relationships (..)]`` by the human-readable ids the prompt lists).
- LightRAG 1.5.7 entity extraction (``entity<|#|>name<|#|>type<|#|>description`` and
  ``relation<|#|>source<|#|>target<|#|>keywords<|#|>description`` rows, ending
  ``<|COMPLETE|>``), its continue-extraction prompt, description summaries, and query
  keyword extraction (JSON ``high_level_keywords`` / ``low_level_keywords``).

The "model" recognises the entities of ``corpus/catalogue.json`` by their surface forms
and writes, for each, the sentences of the chunk that mention it; a relationship joins
two entities named in one sentence, described by that sentence. Everything it says is
taken from the text it is shown: no answer is hand-written per chunk.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CATALOGUE = Path(__file__).with_name("corpus") / "catalogue.json"

GRAPHRAG_TUPLE = "<|>"
GRAPHRAG_RECORD = "##"
COMPLETE = "<|COMPLETE|>"
LIGHTRAG_TUPLE = "<|#|>"

_SENTENCE = re.compile(r"(?<=[.!?。！？])[\"”’]?\s*")


@dataclass(frozen=True)
class Entity:
    name: str
    type: str
    forms: tuple[str, ...]


def catalogue() -> list[Entity]:
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    return [Entity(e["name"], e["type"], tuple(e["forms"])) for e in data["entities"]]


def sentences(text: str) -> list[str]:
    """The text's sentences (English and Chinese end marks), stripped, none empty."""
    parts = [p.strip() for p in _SENTENCE.split(text)]
    return [p for p in parts if p]


def _join(parts: list[str]) -> str:
    """Sentences joined as their script writes them (no space after a CJK full stop)."""
    return ("" if parts and not any(p.isascii() for p in parts) else " ").join(parts)


def mentions(entity: Entity, sentence: str) -> bool:
    return any(form in sentence for form in entity.forms)


@dataclass(frozen=True)
class Extraction:
    entities: list[tuple[Entity, str]]  # entity, description
    relations: list[tuple[Entity, Entity, str, int]]  # source, target, description, strength


def extract(text: str) -> Extraction:
    """Entities named in ``text`` and relationships between two named in one sentence."""
    said = sentences(text)
    found: list[tuple[Entity, str]] = []
    for entity in catalogue():
        own = [s for s in said if mentions(entity, s)]
        if own:
            found.append((entity, _join(own[:2])))
    relations: list[tuple[Entity, Entity, str, int]] = []
    for i, (a, _) in enumerate(found):
        for b, _ in found[i + 1 :]:
            shared = [s for s in said if mentions(a, s) and mentions(b, s)]
            if shared:
                relations.append((a, b, shared[0], min(10, 2 * len(shared))))
    return Extraction(found, relations)


# -- GraphRAG --------------------------------------------------------------------------------


def _between(text: str, start: str, end: str) -> str:
    head = text.split(start, 1)[1] if start in text else text
    return head.split(end, 1)[0] if end in head else head


def graphrag_extract(prompt: str) -> str:
    text = _between(prompt.rsplit("-Real Data-", 1)[-1], "Text: ", "\n######################\nOutput:")
    found = extract(text)
    records = [
        f'("entity"{GRAPHRAG_TUPLE}{e.name.upper()}{GRAPHRAG_TUPLE}{e.type.upper()}{GRAPHRAG_TUPLE}{d})'
        for e, d in found.entities
    ]
    records += [
        f'("relationship"{GRAPHRAG_TUPLE}{a.name.upper()}{GRAPHRAG_TUPLE}{b.name.upper()}{GRAPHRAG_TUPLE}{d}{GRAPHRAG_TUPLE}{w})'
        for a, b, d, w in found.relations
    ]
    return f"\n{GRAPHRAG_RECORD}\n".join(records) + f"\n{COMPLETE}"


def _description_list(prompt: str, start: str, end: str) -> list[str]:
    raw = _between(prompt, start, end).strip()
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, list):
        return [str(p) for p in parsed]
    items: list[str] = []
    for line in raw.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            items.append(line)
            continue
        items.append(str(value.get("description", value)) if isinstance(value, dict) else str(value))
    return items


def summarize(descriptions: list[str]) -> str:
    """Descriptions joined, each distinct sentence once, in their order."""
    seen: list[str] = []
    for d in descriptions:
        for s in sentences(d):
            if s not in seen:
                seen.append(s)
    return _join(seen)


def _section(prompt: str, label: str) -> list[dict[str, str]]:
    marker = f"-----{label}-----\n"
    if marker not in prompt:
        return []
    body = prompt.split(marker, 1)[1]
    body = re.split(r"\n-{4,}[A-Za-z]+-{4,}\n", body, maxsplit=1)[0]
    body = body.split("\n\nThe report should include", 1)[0]
    return list(csv.DictReader(io.StringIO(body.strip())))


def graphrag_report(prompt: str) -> str:
    text = prompt.rsplit("# Real Data", 1)[-1]
    entities = _section(text, "Entities")
    edges = _section(text, "Relationships")
    names = [e.get("title") or e.get("entity") or "" for e in entities]
    ids = [e.get("human_readable_id") or e.get("id") or "" for e in entities]
    title = " and ".join(n.title() for n in names[:2]) or "Community"
    findings: list[dict[str, str]] = []
    for e in entities[:5]:
        eid = e.get("human_readable_id") or e.get("id") or ""
        findings.append(
            {
                "summary": f"{(e.get('title') or '').title()}",
                "explanation": f"{e.get('description', '')} [Data: Entities ({eid})]",
            }
        )
    for r in edges[:3]:
        rid = r.get("human_readable_id") or r.get("id") or ""
        findings.append(
            {
                "summary": f"{(r.get('source') or '').title()} and {(r.get('target') or '').title()}",
                "explanation": f"{r.get('description', '')} [Data: Relationships ({rid})]",
            }
        )
    summary = f"The community around {', '.join(n.title() for n in names[:3])}. " + " ".join(
        (e.get("description") or "") for e in entities[:2]
    )
    report = {
        "title": title,
        "summary": f"{summary.strip()} [Data: Entities ({', '.join(i for i in ids[:5] if i)})]",
        "rating": float(min(10, len(entities) + len(edges))),
        "rating_explanation": f"{len(entities)} entities and {len(edges)} relationships.",
        "findings": findings,
    }
    return json.dumps(report, ensure_ascii=False)


# -- LightRAG --------------------------------------------------------------------------------


def lightrag_extract(prompt: str) -> str:
    text = _between(prompt.rsplit("---Input Text---", 1)[-1], "```\n", "\n```")
    found = extract(text)
    rows = [f"entity{LIGHTRAG_TUPLE}{e.name}{LIGHTRAG_TUPLE}{e.type}{LIGHTRAG_TUPLE}{d}" for e, d in found.entities]
    rows += [
        f"relation{LIGHTRAG_TUPLE}{a.name}{LIGHTRAG_TUPLE}{b.name}{LIGHTRAG_TUPLE}{a.type} {b.type},co-occurrence{LIGHTRAG_TUPLE}{d}"
        for a, b, d, _ in found.relations
    ]
    return "\n".join([*rows, COMPLETE])


WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|[\u4e00-\u9fff]+")
STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "did", "does", "do", "for", "from", "had", "has", "have", "he", "her", "his", "how", "in", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their", "them", "they", "this", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "whose", "why", "with"]
)


def lightrag_keywords(query: str) -> str:
    """Offline keyword rule (the same rule agrag_lab applies without an LLM): low level, the
    catalogue names and capitalised words of the query; high level, its other content words."""
    low: list[str] = [e.name for e in catalogue() if mentions(e, query)]
    high: list[str] = []
    for w in WORD.findall(query):
        if w.lower() in STOP:
            continue
        if w[0].isupper() or not w.isascii():
            if not any(w in name for name in low):
                low.append(w)
        elif w not in high:
            high.append(w)
    return json.dumps({"high_level_keywords": high, "low_level_keywords": low}, ensure_ascii=False)


# -- dispatch ---------------------------------------------------------------------------------


def _text(messages: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts += [str(c.get("text", "")) for c in content if isinstance(c, dict)]
        elif content:
            parts.append(str(content))
    return "\n".join(parts)


def answer(body: dict[str, Any]) -> str:
    """The reply to one chat-completion request body."""
    messages = body.get("messages") or []
    last = _text(messages[-1:])
    whole = _text(messages)
    # GraphRAG
    if "MANY entities and relationships were missed" in last:
        return COMPLETE
    if "Answer Y if there are still entities" in last or "Answer Y or N if there are still entities" in last:
        return "N"  # 3.3.0's loop prompt, then 1.2's
    if "-Real Data-" in last and "Entity_types:" in last:
        return graphrag_extract(last)
    if "Description List:" in last and "Entities:" in last and "---Input---" not in last:
        return summarize(_description_list(last, "Description List:", "#######"))
    if "# Real Data" in last and "-----Entities-----" in last:
        return graphrag_report(last)
    # LightRAG
    if "identify and extract any missed or incorrectly formatted" in last:
        return COMPLETE
    if "---Input Text---" in last and "Extract entities and relationships" in last:
        return lightrag_extract(last)
    if "Description List:" in last and "---Input---" in last:
        return summarize(_description_list(last, "```", "```"))
    if "high_level_keywords" in whole:
        query = _between(last, "User Query:", "\n").strip() or last.strip().splitlines()[-1]
        return lightrag_keywords(query)
    return "I cannot answer that from the data."
