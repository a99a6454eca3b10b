"""The evidence tools as the built-in agent calls them, built from the one registry.

:data:`agrag_lab.evidence.tools.TOOLS` says, for each tool, whether the
agent's model is offered it (:data:`AGENT_TOOLS`) or the agent calls it
itself (``render_citations``). This module turns those specs into the
OpenAI-compatible ``tools`` entries (:func:`openai_tools`) and runs a model's
call on the agent's :class:`~agrag_lab.evidence.session.EvidenceSession`
(:func:`call_tool`), which never raises for a bad call: the error comes back
as a message the model can act on.

Examples
--------
>>> AGENT_TOOLS[:2]
('search_evidence', 'fetch_evidence')
>>> [t["function"]["name"] for t in openai_tools(["navigate"])]
['navigate']
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agrag_lab.errors import AgragError
from agrag_lab.evidence.tools import TOOLS, describe_validation_error, run_tool, tool

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession

__all__ = [
    "AGENT_TOOLS",
    "CALLABLE_TOOLS",
    "DESCRIPTIONS",
    "ToolOutcome",
    "call_tool",
    "describe_validation_error",
    "openai_tools",
    "result_ids",
]

#: The tools the built-in agent's model is offered (it renders citations itself).
AGENT_TOOLS: tuple[str, ...] = tuple(spec.name for spec in TOOLS if spec.agent == "offered")
#: The tools :func:`call_tool` runs: the offered ones and those the agent calls itself.
CALLABLE_TOOLS: tuple[str, ...] = tuple(spec.name for spec in TOOLS if spec.agent != "none")
#: What each tool the agent knows does, as its callers (people and models) read it.
DESCRIPTIONS: dict[str, str] = {spec.name: spec.description for spec in TOOLS if spec.agent != "none"}


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call did: its data (JSON-safe), the ids it names, or its error.

    Attributes
    ----------
    name : str
        The tool.
    arguments : dict
        The arguments as given.
    data : dict
        The result as JSON-safe data (``{}`` on error).
    ids : tuple of str
        Evidence ids (and entity ids) the result names, in order.
    error : str or None
        Why the call failed, as a message the caller can act on.
    seconds : float
        Wall time of the call.
    """

    name: str
    arguments: dict[str, Any]
    data: dict[str, Any] = field(default_factory=dict)
    ids: tuple[str, ...] = ()
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.error is None


def result_ids(name: str, data: Mapping[str, Any]) -> tuple[str, ...]:
    """The ids a result of tool ``name`` names (hits, fetched texts, entities, supports, references).

    Examples
    --------
    >>> result_ids("fetch_evidence", {"items": [{"id": "a@0123456789ab#c1", "ok": True},
    ...                                          {"id": "bad", "ok": False}]})
    ('a@0123456789ab#c1',)
    """
    return tool(name).result_ids(data)


def _shown(arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """The arguments as given, as a dict (a text that is no JSON object is kept under ``_raw``)."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, str):
        try:
            loaded = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return {"_raw": arguments}
        return loaded if isinstance(loaded, dict) else {"_raw": arguments}
    return {}


def call_tool(session: EvidenceSession, name: str, arguments: Mapping[str, Any] | str | None) -> ToolOutcome:
    """Validate and run one tool call; never raises for a bad call.

    Parameters
    ----------
    session : EvidenceSession
        The session (and so the scope and the fetch memory) to run in.
    name : str
        A tool of :data:`CALLABLE_TOOLS`.
    arguments : mapping or str or None
        The arguments, or their JSON text (as a model sends them).

    Returns
    -------
    ToolOutcome
        The data and ids, or the error message.
    """
    started = time.perf_counter()
    shown = _shown(arguments)
    try:
        data = run_tool(session, name, arguments, CALLABLE_TOOLS)
    except AgragError as exc:
        return ToolOutcome(name, shown, error=str(exc), seconds=time.perf_counter() - started)
    return ToolOutcome(name, shown, data, result_ids(name, data), seconds=time.perf_counter() - started)


def openai_tools(names: Sequence[str] = AGENT_TOOLS) -> list[dict[str, Any]]:
    """The tools as OpenAI-compatible ``tools`` entries (function name, description, JSON schema)."""
    out = []
    for name in names:
        spec = tool(name)
        schema = spec.arguments.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        out.append({"type": "function", "function": {"name": name, "description": spec.description, "parameters": schema}})
    return out
