"""A claim about an entity (a GraphRAG covariate): a plain value, importing nothing of the graph.

The evidence tools' results carry claims (:mod:`agrag_lab.evidence.results`),
and ``tools/list`` describes those results without importing networkx: so
:class:`Claim` lives here, not in :mod:`agrag_lab.kg.model` (which re-exports it).

Examples
--------
>>> Claim("ent-ada", "AUTHOR", "Ada wrote Note G.", "ada#c0").status
''
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Claim"]


@dataclass(frozen=True)
class Claim:
    """A claim about an entity (a GraphRAG covariate), supported by one chunk.

    ``subject`` is the entity the claim is about (an entity id); ``object`` the
    other party as written (an entity id when it names a known entity, else
    the text, ``""`` when none). ``status`` is GraphRAG's ``TRUE``/``FALSE``/
    ``SUSPECTED``; dates are as given (``""`` when none).
    """

    subject: str
    type: str
    description: str
    chunk_id: str
    object: str = ""
    status: str = ""
    start_date: str = ""
    end_date: str = ""
    source_text: str = ""
