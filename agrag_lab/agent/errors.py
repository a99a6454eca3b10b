"""Errors of the agent and its tools, re-exported from their home :mod:`agrag_lab.errors`.

Examples
--------
>>> from agrag_lab.errors import AgragError, ArgumentError, ModelError
>>> issubclass(LLMError, ModelError), issubclass(ToolArgumentError, ArgumentError)
(True, True)
"""

from __future__ import annotations

from agrag_lab.errors import AgentArgumentError, LLMError, ToolArgumentError

__all__ = ["AgentArgumentError", "LLMError", "ToolArgumentError"]
