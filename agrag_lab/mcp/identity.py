"""What the evidence server says it is: its name, title, version and instructions to a client.

Both the stdio front (:mod:`agrag_lab.mcp.front`, which answers before the index is open) and the evidence
server (:mod:`agrag_lab.mcp.server`) introduce themselves with these, so a client sees one server either way.
This module imports nothing, so the front stays light.
"""

from __future__ import annotations

__all__ = ["INSTRUCTIONS", "NAME", "TITLE", "server_version"]

NAME = "agrag-lab"
TITLE = "agrag_lab evidence server"
INSTRUCTIONS = (
    "Evidence retrieval over one document index, within a scope fixed when the server started. "
    "Find passages with search_evidence (or find_entities / explore / search), read them exactly with "
    "fetch_evidence, cite evidence ids inline (DOC@VERSION#cN), and verify with check_citations: a "
    "citation is valid only if it was fetched in your evidence session. Without a connection (HTTP, "
    "protocol 2026-07-28) pass the session handle from open_session or fetch_evidence as `session`."
)


def server_version() -> str:
    """The installed agrag_lab version ("0" when run from a checkout that is not installed)."""
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("agrag_lab")
    except PackageNotFoundError:
        return "0"
