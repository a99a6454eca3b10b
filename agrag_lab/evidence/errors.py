"""Errors of the evidence functions and their tools, re-exported from their home :mod:`agrag_lab.errors`.

Malformed ids raise :class:`~agrag_lab.errors.EvidenceIdError` and ids that
name nothing readable raise :class:`~agrag_lab.errors.NotFoundError`; invalid
arguments (a mode, a limit, a direction) raise :class:`EvidenceArgumentError`,
invalid tool calls (:mod:`agrag_lab.evidence.tools`) :class:`ToolArgumentError`.

Examples
--------
>>> from agrag_lab.errors import ArgumentError
>>> issubclass(EvidenceArgumentError, ArgumentError), issubclass(EvidenceArgumentError, ValueError)
(True, True)
>>> issubclass(ToolArgumentError, ArgumentError), issubclass(ToolArgumentError, ValueError)
(True, True)
"""

from __future__ import annotations

from agrag_lab.errors import EvidenceArgumentError, EvidenceTypeError, ToolArgumentError

__all__ = ["EvidenceArgumentError", "EvidenceTypeError", "ToolArgumentError"]
