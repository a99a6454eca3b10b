"""Errors of the evidence functions.

Malformed ids raise :class:`~agrag_lab.errors.EvidenceIdError` and ids that
name nothing readable raise :class:`~agrag_lab.errors.NotFoundError`; this
module adds the errors for invalid arguments (a mode, a limit, a direction) and
for invalid tool calls (:mod:`agrag_lab.evidence.tools`).
All share the root :class:`~agrag_lab.errors.AgragError`.

Examples
--------
>>> from agrag_lab.errors import AgragError

__all__ = ["EvidenceArgumentError", "ToolArgumentError"]
>>> issubclass(EvidenceArgumentError, AgragError), issubclass(EvidenceArgumentError, ValueError)
(True, True)
>>> issubclass(ToolArgumentError, AgragError), issubclass(ToolArgumentError, ValueError)
(True, True)
"""

from __future__ import annotations

from agrag_lab.errors import AgragError

__all__ = ["EvidenceArgumentError", "ToolArgumentError"]


class EvidenceArgumentError(AgragError, ValueError):
    """An argument of an evidence function is invalid; the message names the fix."""


class ToolArgumentError(AgragError, ValueError):
    """A tool call names an unknown tool or gives invalid arguments; the message says which and why."""
