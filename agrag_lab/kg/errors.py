"""Errors of the knowledge-graph layer.

They share the package root :class:`agrag_lab.errors.AgragError` and the builtin
they resemble, so callers may catch either.

Examples
--------
>>> from agrag_lab.errors import AgragError
>>> from agrag_lab.kg.errors import KnowledgeGraphError
>>> issubclass(KnowledgeGraphError, AgragError), issubclass(KnowledgeGraphError, ValueError)
(True, True)
"""

from __future__ import annotations

from agrag_lab.errors import AgragError


class KnowledgeGraphError(AgragError, ValueError):
    """Input to the knowledge-graph layer is invalid.

    Raised for malformed given facts (``metadata["entities"]``/``["relations"]``),
    duplicate chunk ids handed to the builder, and out-of-range query arguments
    (a negative depth or limit). The message names the bad value and the fix.
    """
