"""Agents may read a graph, not rewrite it: no tool of the registry the MCP server and the agent share edits or exports."""

from __future__ import annotations

import importlib.util

from agrag_lab.evidence.tools import TOOLS


def test_no_agent_tool_calls_a_curation_function() -> None:
    assert TOOLS
    for spec in TOOLS:
        module = spec.calls.split(":", 1)[0]  # a module of agrag_lab.evidence: the read-only evidence functions
        assert importlib.util.find_spec(f"agrag_lab.evidence.{module}") is not None, spec.calls
        assert not {"curate", "merge", "undo", "delete", "rename", "export"} & set(spec.name.split("_")), spec.name
