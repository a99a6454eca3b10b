"""A query's low- and high-level keywords: from an LLM when one is configured, else an offline rule.

LightRAG (``lightrag/operate.py``, ``get_keywords_from_query`` / ``extract_keywords_only``;
lightrag-hku 1.5.7) asks its LLM for two keyword lists: *low-level* keywords (names of
concrete things: people, places, objects) search its entities, *high-level* keywords
(themes, actions, concepts) search its relationships. The keyword-graph methods
(:mod:`agrag_lab.retrieval.methods.keyword_graph`) do the same:

- with ``AGRAG_LLM_BASE_URL`` / ``AGRAG_LLM_MODEL`` set, :func:`llm_keywords` asks that
  model with LightRAG's instruction (JSON with ``high_level_keywords`` and
  ``low_level_keywords``);
- otherwise :func:`rule_keywords`: low level, the names of the graph's entities (or their
  aliases) found in the query, in the order they appear there (whole words, in any case, a
  plural matching its singular: :func:`word_key`; a name in a script without spaces, such as
  Chinese, as a substring), then every other capitalised
  (or non-Latin) word of the query not inside one of them; high level, the query's other
  content words (stop words dropped). It is the rule ``peers/scripted_model.py`` answered
  LightRAG's own keyword prompt with when the parity fixtures were recorded.

:attr:`Keywords.source` says which made them; the ledger shows it (leg ``keywords``).

Examples
--------
>>> k = rule_keywords("Who told Mrs. Bennet that Netherfield Park was let?", ["Netherfield Park", "Mrs. Bennet"])
>>> k.low, k.high, k.source
(('Mrs. Bennet', 'Netherfield Park'), ('told', 'let'), 'rule')
>>> rule_keywords("Where did Ishmael arrive?", []).low
('Ishmael',)
>>> rule_keywords("which ghosts visited scrooge in canada?", ["Ghost", "SCROOGE", "Ada"]).low
('Ghost', 'SCROOGE')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the LLM client and pydantic are imported when a model is configured (issue 30: start-up)
    from agrag_lab.llm.client import ChatClient, LLMSettings

__all__ = ["Keywords", "llm_keywords", "query_keywords", "rule_keywords", "word_key"]

#: A word of the rule: Latin letters (with ' and -), or a run of CJK ideographs.
WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|[\u4e00-\u9fff]+")
#: Words the rule never keeps (English function words, question words).
STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "did", "does", "do", "for", "from", "had", "has", "have", "he", "her", "his", "how", "in", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their", "them", "they", "this", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "whose", "why", "with"]
)
#: Shortest entity name the rule looks for in a query (shorter ones match inside words).
MIN_NAME_CHARS = 2

_INSTRUCTION = (
    "You are a helpful assistant tasked with identifying both high-level and low-level keywords in the "
    "user's query. High-level keywords focus on overarching concepts or themes; low-level keywords focus on "
    "specific entities, details, or concrete terms. Answer only a JSON object with two keys: "
    '"high_level_keywords" (a list of strings) and "low_level_keywords" (a list of strings). '
    "Use the language of the query."
)


@dataclass(frozen=True)
class Keywords:
    """Low-level (entity) and high-level (relation) keywords of a query, and what made them
    (``rule``, or ``llm <model>``)."""

    low: tuple[str, ...]
    high: tuple[str, ...]
    source: str


@lru_cache(maxsize=1)
def _keyword_reply() -> Any:
    """The reply's pydantic model (made on first use: pydantic is 0.1 s of a start that asks no model)."""
    from pydantic import BaseModel, Field

    class KeywordReply(BaseModel):
        high_level_keywords: list[str] = Field(default_factory=list)
        low_level_keywords: list[str] = Field(default_factory=list)

    return KeywordReply


#: A word of a name or a query when matching one in the other (letters and digits of any script).
_TOKEN = re.compile(r"\w+")


def word_key(word: str) -> str:
    """A word as the rule matches it: case folded, an English plural made singular.

    Examples
    --------
    >>> [word_key(w) for w in ("Ghosts", "companies", "Churches", "boxes", "Mrs", "glass", "GHOST")]
    ['ghost', 'company', 'church', 'box', 'mrs', 'glass', 'ghost']
    """
    w = word.casefold()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _keys(text: str) -> list[tuple[int, str]]:
    """``(start, word_key)`` of each word of ``text``."""
    return [(m.start(), word_key(m.group())) for m in _TOKEN.finditer(text)]


def _find(name: str, query: str, query_keys: list[tuple[int, str]]) -> int:
    """Where ``name`` starts in ``query`` (-1: not there): as whole words (:func:`word_key`), or, for a
    name of one spaceless non-Latin word (Chinese...), as a case-folded substring."""
    keys = [k for _, k in _keys(name)]
    if not keys:
        return -1
    if len(keys) == 1 and not keys[0].isascii():
        return query.casefold().find(name.casefold())
    words = [k for _, k in query_keys]
    for i in range(len(words) - len(keys) + 1):
        if words[i:i + len(keys)] == keys:
            return query_keys[i][0]
    return -1


def rule_keywords(query: str, names: Iterable[str]) -> Keywords:
    """The offline rule (see the module docstring): ``names`` are the graph's entity names and aliases."""
    found: list[tuple[int, str]] = []
    query_keys = _keys(query)
    for name in dict.fromkeys(names):
        if len(name) >= MIN_NAME_CHARS:
            at = _find(name, query, query_keys)
            if at >= 0:
                found.append((at, name))
    low = [name for _, name in sorted(found)]
    folded = [name.casefold() for name in low]
    high: list[str] = []
    for word in WORD.findall(query):
        if word.lower() in STOP:
            continue
        if word[0].isupper() or not word.isascii():
            if not any(word.casefold() in name for name in folded):
                low.append(word)
        elif word not in high:
            high.append(word)
    return Keywords(tuple(low), tuple(high), "rule")


def llm_keywords(query: str, client: ChatClient) -> Keywords:
    """The keywords the configured chat model gives (LightRAG's keyword extraction).

    Raises
    ------
    LLMError, StructuredOutputError
        The endpoint failed, or answered no valid JSON twice.
    """
    from agrag_lab.llm.structured import ask_structured

    reply, _ = ask_structured(
        client,
        [{"role": "system", "content": _INSTRUCTION}, {"role": "user", "content": f"Query: {query}"}],
        _keyword_reply(),
    )
    return Keywords(_clean(reply.low_level_keywords), _clean(reply.high_level_keywords),
                    f"llm {client.settings.model}")


def _clean(words: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(w.strip() for w in words if w.strip()))


_CLIENTS: dict[LLMSettings, ChatClient] = {}


def query_keywords(query: str, names: Iterable[str], settings: LLMSettings | None = None) -> Keywords:
    """:func:`llm_keywords` when ``settings`` (or ``AGRAG_LLM_*``) name a model, else :func:`rule_keywords`."""
    from agrag_lab.llm.client import ChatClient, LLMSettings

    settings = settings or LLMSettings.from_env()
    if settings is None:
        return rule_keywords(query, names)
    client = _CLIENTS.get(settings)
    if client is None:
        client = _CLIENTS.setdefault(settings, ChatClient(settings))
    return llm_keywords(query, client)
