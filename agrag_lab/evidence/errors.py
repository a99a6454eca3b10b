"""Errors of the evidence functions.

Malformed ids raise :class:`~agrag_lab.errors.EvidenceIdError` and ids that
name nothing readable raise :class:`~agrag_lab.errors.NotFoundError`; this
module adds the error for invalid arguments (a mode, a limit, a direction).
All share the root :class:`~agrag_lab.errors.AgragError`.

Examples
--------
>>> from agrag_lab.errors import AgragError
>>> issubclass(EvidenceArgumentError, AgragError), issubclass(EvidenceArgumentError, ValueError)
(True, True)
"""

from __future__ import annotations

from agrag_lab.errors import AgragError


class EvidenceArgumentError(AgragError, ValueError):
    """An argument of an evidence function is invalid; the message names the fix."""
