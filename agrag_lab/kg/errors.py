"""Errors of the knowledge-graph layer, re-exported from their home :mod:`agrag_lab.errors`.

Examples
--------
>>> from agrag_lab.errors import ArgumentError
>>> from agrag_lab.kg.errors import KnowledgeGraphError
>>> issubclass(KnowledgeGraphError, ArgumentError), issubclass(KnowledgeGraphError, ValueError)
(True, True)
"""

from __future__ import annotations

from agrag_lab.errors import EditConflictError, KnowledgeGraphError

__all__ = ["EditConflictError", "KnowledgeGraphError"]
