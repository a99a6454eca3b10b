"""Errors of the agent and its tools, under the one root :class:`~agrag_lab.errors.AgragError`.

Examples
--------
>>> from agrag_lab.errors import AgragError
>>> issubclass(LLMError, AgragError), issubclass(ToolArgumentError, ValueError)
(True, True)
"""

from __future__ import annotations

from agrag_lab.errors import AgragError
from agrag_lab.evidence.errors import ToolArgumentError

__all__ = ["AgentArgumentError", "LLMError", "ToolArgumentError"]


class AgentArgumentError(AgragError, ValueError):
    """An argument of the agent is invalid (a blank question, a missing endpoint)."""


class LLMError(AgragError, RuntimeError):
    """The chat endpoint failed, is unreachable, or answered something that is not a chat completion."""
